// Progress logs (io/progress_log.hpp): the simple format (Unix and ISO-8601 times), tqdm/Lightning bars and
// Keras epochs, what each ignores, their errors with file:line, the example logs, and random bytes.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>

#include <steptime/io.hpp>
#include "support/errors.hpp"

using namespace steptime;
using io::parse_progress_log;
using io::progress_format;

namespace {

using test_support::message_of;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string parse_fails(const std::string& text, progress_format f = progress_format::automatic) {
    return message_of<parse_error>([&] { parse_progress_log(text, "job.log", f); });
}

const std::string examples = STEPTIME_SOURCE_DIR "/examples/data/";

}  // namespace

TEST_CASE("progress log, simple: Unix seconds, ISO-8601 times with zones, totals, comments") {
    const auto log = parse_progress_log("# a comment\n"
                                        "\n"
                                        "2024-05-01T10:00:00Z 0/100 loss=1.0\n"
                                        "2024-05-01T12:00:30.5+02:00 10/100\n"
                                        "1714557661 20\n"
                                        "2024-05-01T10:01:31.25 30\n");
    CHECK(log.format == progress_format::simple);
    REQUIRE(log.samples.size() == 4);
    // 2024-05-01T10:00:00Z is Unix time 1714557600 (Python: datetime(2024,5,1,10,tzinfo=utc).timestamp()).
    CHECK(log.samples[0].time.value() == 1714557600.0);
    // 12:00:30.5 at +02:00 is 10:00:30.5 UTC; no zone is UTC.
    CHECK(log.samples[1].time.value() == 1714557630.5);
    CHECK(log.samples[2].time.value() == 1714557661.0);
    CHECK(log.samples[3].time.value() == 1714557691.25);
    CHECK(log.samples[3].iteration == 30);
    CHECK(log.position == 30);
    CHECK(log.total == 100);
    CHECK_FALSE(log.per_epoch);
    // A leap day exists in 2024 (2024-02-29T00:00:00Z = 1709164800), not in 2023.
    CHECK(parse_progress_log("2024-02-29T00:00:00Z 1\n").samples[0].time.value() == 1709164800.0);
    CHECK(contains(parse_fails("2023-02-29T00:00:00Z 1\n2023-03-01T00:00:00Z 2\n"), "job.log:1: expected '<time>"));
}

TEST_CASE("progress log, simple: errors name the file and line; a torn last line is ignored") {
    CHECK(contains(parse_fails("100 1\n\nhello world\n200 2\n"), "job.log:3: expected '<time> <iteration>[/<total>]'"));
    CHECK(contains(parse_fails("100 1\n200 1\n"), "job.log:2: iteration 1 at 200 is not after the line before"));
    CHECK(contains(parse_fails("100 1\n90 2\n"), "job.log:2: iteration 2 at 90 is not after"));
    CHECK(contains(parse_fails("100 1/50\n200 2/60\n"), "job.log:2: total of 60 iterations, line 1 said 50"));
    CHECK(contains(parse_fails("100 51/50\n"), "job.log:1: iteration 51 of a total of 50"));
    CHECK(contains(parse_fails("100 -1\n200 2\n"), "job.log:1: expected"));
    CHECK(contains(parse_fails("nan 1\n200 2\n"), "job.log:1: expected"));
    CHECK(contains(parse_fails(""), "job.log: no timed progress in the simple format"));
    CHECK(contains(parse_fails("# only a comment\n"), "no timed progress"));
    // A running job may be writing its last line.
    const auto log = parse_progress_log("100 1\n200 2\n300.2");
    CHECK(log.samples.size() == 2);
    CHECK(log.ignored == 1);
}

TEST_CASE("progress log, tqdm: Lightning epoch bars, carriage returns, validation bars ignored") {
    const std::string text =
        "GPU available: True (cuda), used: True\n"
        "Sanity Checking DataLoader 0: 100%|##########| 2/2 [00:00<00:00,  5.12it/s]\n"
        "Epoch 0:   0%|          | 0/100 [00:00<?, ?it/s]\r"
        "Epoch 0:  50%|#####     | 50/100 [00:15<00:15,  3.33it/s, loss=0.5, v_num=1]\r"
        "Epoch 0:  50%|#####     | 50/100 [00:15<00:15,  3.33it/s, loss=0.5, v_num=1]\r"
        "Epoch 0: 100%|##########| 100/100 [00:30<00:00,  3.33it/s, loss=0.4, v_num=1]\r"
        "Validation DataLoader 0: 100%|##########| 10/10 [00:01<00:00,  9.1it/s]\n"
        "Epoch 1:  45%|####5     | 45/100 [1:02:03<00:15,  1.25s/it, loss=0.3, v_num=1]\n";
    const auto log = parse_progress_log(text, "fit.log");
    CHECK(log.format == progress_format::tqdm);
    REQUIRE(log.samples.size() == 4);
    // Epoch k, n: k x 100 + n iterations; elapsed since the epoch's bar started; one segment per epoch.
    CHECK(log.samples[1].iteration == 50);
    CHECK(log.samples[1].time.value() == 15.0);
    CHECK(log.samples[2].iteration == 100);
    CHECK(log.samples[3].iteration == 145);
    CHECK(log.samples[3].time.value() == 3723.0);  // 1:02:03
    CHECK(log.samples[2].segment == 0);
    CHECK(log.samples[3].segment == 1);
    CHECK(log.position == 145);
    CHECK(log.per_epoch == 100);
    CHECK_FALSE(log.total);  // "Epoch k" does not say how many epochs
    // Ignored: the GPU line, the sanity and validation bars, the redraw of 50/100.
    CHECK(log.ignored == 4);
    // Lightning's "Epoch k/last": epochs 0..9, so 10 x 100 iterations.
    CHECK(parse_progress_log("Epoch 3/9:  45%|####5     | 45/100 [00:15<00:15,  3.00it/s]\n").total == 1000);
}

TEST_CASE("progress log, tqdm: unlabelled bars follow one another") {
    const std::string one = "  0%|          | 0/200 [00:00<?, ?it/s]\r 25%|##5       | 50/200 [00:10<00:30,  5.00it/s]\n";
    const auto single = parse_progress_log(one);
    CHECK(single.total == 200);  // one bar: the job
    const auto two = parse_progress_log(one + "  0%|          | 0/200 [00:00<?, ?it/s]\r 10%|#         | 20/200 [00:04<00:36,  5.00it/s]\n");
    REQUIRE(two.samples.size() == 4);
    CHECK(two.samples[3].iteration == 220);  // the first bar's 200 + 20
    CHECK(two.samples[3].segment == 1);
    CHECK_FALSE(two.total);
    CHECK(two.per_epoch == 200);
}

TEST_CASE("progress log, tqdm: a broken epoch bar is an error, unless it is the last record") {
    const std::string good = "Epoch 0:  50%|#####     | 50/100 [00:15<00:15,  3.33it/s]\n";
    CHECK(contains(parse_fails(good + "Epoch 0:  60%|######    | 60/100 [xx:15<00:15]\n" + good),
                   "job.log:2: expected a tqdm bar"));
    CHECK(contains(parse_fails(good + "Epoch 0: 100%|##########| 120/100 [00:30<00:00]\n" + good), "job.log:2:"));
    CHECK(contains(parse_fails("Epoch 10/9:  50%|#####     | 50/100 [00:15<00:15]\n" + good), "job.log:1:"));
    const auto torn = parse_progress_log(good + "Epoch 0:  60%|######    | 60/1");
    CHECK(torn.samples.size() == 1);
    CHECK(torn.ignored == 1);
    CHECK(contains(parse_fails("Validation: 100%|##########| 10/10 [00:01<00:00]\n"),
                   "no timed progress in the tqdm format"));
}

TEST_CASE("progress log, Keras: ended epochs are the samples, mid-epoch records the position") {
    const std::string text = "Epoch 1/10\n"
                             " 1/100 [..............................] - ETA: 45s - loss: 0.9\n"
                             " 50/100 [==============>...............] - ETA: 15s - loss: 0.7\n"
                             "100/100 [==============================] - 31s 305ms/step - loss: 0.6 - val_loss: 0.7\n"
                             "Epoch 2/10\n"
                             "100/100 [==============================] - 30s 301ms/step - loss: 0.5\n"
                             "10/10 [==============================] - 1s 90ms/step - loss: 0.5\n"
                             "Epoch 3/10\n"
                             "\b\b\b\r 40/100 [===========>..................] - ETA: 18s - loss: 0.4";
    const auto log = parse_progress_log(text);
    CHECK(log.format == progress_format::keras);
    REQUIRE(log.samples.size() == 3);
    // Epoch 1: 305 ms x 100 steps = 30.5 s (finer than "31s"); epoch 2: 30.1 s; a running sum.
    CHECK(log.samples[0].iteration == 0);
    CHECK(log.samples[0].time.value() == 0.0);
    CHECK(log.samples[1].iteration == 100);
    CHECK(log.samples[1].time.value() == doctest::Approx(30.5));
    CHECK(log.samples[2].iteration == 200);
    CHECK(log.samples[2].time.value() == doctest::Approx(60.6));
    // Epoch 3, step 40: 2 x 100 + 40. The evaluate record after epoch 2's end is ignored.
    CHECK(log.position == 240);
    CHECK(log.total == 1000);
    CHECK(log.per_epoch == 100);
    CHECK(log.ignored == 1);
}

TEST_CASE("progress log, Keras: the finer time, Keras 3 bars, verbose 2, a missing epoch end") {
    // 10000 steps: "3051s" is finer (0.5 / 3051) than 305 ms x 10000 (0.5 ms x 10000 / 3050).
    const auto coarse_steps = parse_progress_log("Epoch 1/2\n10000/10000 [====] - 3051s 305ms/step\n");
    CHECK(coarse_steps.samples[1].time.value() == doctest::Approx(3051));
    // 900 ms x 100 steps = 90 s contradicts "30s" beyond both roundings (1 s and 0.1 s): the epoch's own time.
    const auto contradicting = parse_progress_log("Epoch 1/2\n100/100 [====] - 30s 900ms/step\n");
    CHECK(contradicting.samples[1].time.value() == doctest::Approx(30));
    // Keras 3: a bar of box characters, no dash before the time.
    const auto k3 = parse_progress_log("Epoch 1/5\n500/500 ━━━━━━━━━━━━━━━━━━━━ 61s 122ms/step - loss: 0.25\n");
    CHECK(k3.samples[1].time.value() == doctest::Approx(61));
    // verbose=2 (tf.keras): no bar, the epoch's time and its per-epoch and per-step figures.
    const auto v2 = parse_progress_log("Epoch 1/5\n500/500 - 61s - loss: 0.25 - 61s/epoch - 122ms/step\n");
    CHECK(v2.samples[1].time.value() == doctest::Approx(61));
    // Epoch 2 never ended in the log: epoch 3 starts a new clock (segment).
    const auto gap = parse_progress_log("Epoch 1/5\n10/10 - 5s 500ms/step\nEpoch 2/5\n5/10 - ETA: 2s\nEpoch 3/5\n10/10 - 5s 500ms/step\n");
    REQUIRE(gap.samples.size() == 4);
    CHECK(gap.samples[2].iteration == 20);
    CHECK(gap.samples[2].time.value() == 0.0);
    CHECK(gap.samples[2].segment == 1);
}

TEST_CASE("progress log, Keras: errors") {
    CHECK(contains(parse_fails("Epoch 11/10\nEpoch 1/10\n"), "job.log:1: 'Epoch 11/10': expected 'Epoch <k>/<n>' with 1 <= k <= n"));
    CHECK(contains(parse_fails("Epoch 1/10\n50/100 - ETA: 5s\n50/90 - ETA: 5s\n60/100 - ETA: 4s\n"),
                   "job.log:3: '50/90': expected <step>/<steps> with step <= steps and 100 steps per epoch"));
    CHECK(contains(parse_fails("Epoch 1/10\n120/100 - ETA: 5s\n1/100\n"), "job.log:2:"));
    CHECK(contains(parse_fails("Epoch 1/10\n50/100 - ETA: 5s\n"), "no timed progress in the keras format"));
    CHECK(contains(parse_fails("Epoch 9223372036854775807/9223372036854775807\n2/2 - 1s\n1/2\n"),
                   "job.log:2: the iteration count overflows 64-bit integers"));
}

TEST_CASE("progress log: the example logs") {
    const auto simple = io::load_progress_log(examples + "train-progress.log");
    CHECK(simple.format == progress_format::simple);
    CHECK(simple.samples.size() == 25);  // iterations 0, 100, ..., 2400
    CHECK(simple.position == 2400);
    CHECK(simple.total == 5000);
    // Made with 0.3125 s per iteration (noise 0.4 s per 100), 25 s start-up, two 40 s checkpoints
    // (examples/data's generator, described in the README): the estimate finds both.
    const eta_estimate e = estimate_eta(simple.samples, simple.position, *simple.total);
    CHECK(e.warmup_dropped == 1);
    CHECK(e.outliers == 2);
    CHECK(e.per_iteration.value() == doctest::Approx(0.3125).epsilon(0.01));
    CHECK(e.remaining_low.value() <= 2600 * 0.3125);
    CHECK(2600 * 0.3125 <= e.remaining_high.value());

    const auto lightning = io::load_progress_log(examples + "lightning-progress.log");
    CHECK(lightning.format == progress_format::tqdm);
    CHECK(lightning.position == 3450);  // epoch 3 at 450 of 1000
    CHECK(lightning.per_epoch == 1000);
    CHECK(estimate_eta(lightning.samples, lightning.position, 10'000).per_iteration.value() ==
          doctest::Approx(0.3).epsilon(0.02));

    const auto keras = io::load_progress_log(examples + "keras-progress.log");
    CHECK(keras.format == progress_format::keras);
    CHECK(keras.position == 2700);  // epoch 6 at 200 of 500
    CHECK(keras.total == 5000);
    CHECK(keras.samples.size() == 6);  // the start and 5 ended epochs
    CHECK(estimate_eta(keras.samples, keras.position, *keras.total).per_iteration.value() ==
          doctest::Approx(0.122).epsilon(0.03));

    CHECK(contains(message_of<parse_error>([] { io::load_progress_log(examples + "no-such.log"); }), "no-such.log: cannot read"));
}

TEST_CASE("progress log: random bytes give a log or a steptime error, never a crash or NaN") {
    // Bytes from the formats' own alphabet, so that many records half-match.
    const std::string alphabet = "0123456789/:.%|[]<>, -\r\n\bEpochETAsmu=T#Z+";
    std::mt19937 gen(7);
    for (int i = 0; i < 3000; ++i) {
        std::string text(gen() % 200, ' ');
        for (char& c : text) c = alphabet[gen() % alphabet.size()];
        for (const auto f : {progress_format::automatic, progress_format::simple, progress_format::tqdm, progress_format::keras}) {
            try {
                const auto log = parse_progress_log(text, "fuzz", f);
                for (const auto& s : log.samples) CHECK(std::isfinite(s.time.value()));
                const eta_estimate e = estimate_eta(log.samples, log.position, log.position + 10);
                CHECK(std::isfinite(e.remaining_high.value()));
            } catch (const steptime::error&) {
            }
        }
    }
}
