// Pipeline parallelism: how a replica is cut into stages, the 1F1B and interleaved schedules' time, the sends
// between stages, and each stage's update and gradient exchange; every expected number derived beside it.
#include <doctest/doctest.h>

#include <steptime/io.hpp>

#include "support/errors.hpp"

using namespace steptime;

namespace {

double s(seconds t) { return t.value(); }
seconds operator""_s(unsigned long long v) { return seconds_of(static_cast<double>(v)); }

const network_link ten_gbytes{"10 GB/s", bytes_per_second_of(10e9), microseconds_of(1), "test"};
// Fast enough that sends vanish next to the passes (a GPT of 32 tokens sends 16 KB: 16 fs).
const network_link instant{"instant", bytes_per_second_of(1e18), seconds{}, "test"};

collective_model ring_over(const network_link& l) { return {collective::ring, l}; }

// A chain of `n` equal fully connected layers of 1024 features.
network chain(int n) {
    network net("chain");
    net.add("x", ops::input{tensor_shape::image(1, 1, 1024)});
    std::string last = "x";
    for (int i = 1; i <= n; ++i) {
        ops::dense d;
        d.outputs = 1024;
        const std::string name = "fc" + std::to_string(i);
        net.add(name, d, {last});
        last = name;
    }
    return net;
}

// A chain of fully connected layers of the given widths, each its own block, from 1024 input features.
network blocks(std::initializer_list<std::int64_t> widths) {
    network net("blocks");
    net.add("x", ops::input{tensor_shape::image(1, 1, 1024)});
    std::string last = "x";
    int i = 0;
    for (std::int64_t w : widths) {
        ops::dense d;
        d.outputs = w;
        const std::string name = "fc" + std::to_string(++i);
        net.set_block(net.add(name, d, {last}), i);
        last = name;
    }
    return net;
}

std::vector<seconds> layer_times(const step_estimate& e) {
    std::vector<seconds> t;
    for (const auto& l : e.layers) t.push_back(l.forward.total() + l.backward.total());
    return t;
}

}  // namespace

TEST_CASE("pipeline: one stage of one micro-batch is the data-parallel step without overlap") {
    const network net = zoo::resnet50();
    const device& dev = devices::get("v100-sxm2-16gb");
    const estimate_options opt{.batch = 32};
    const auto comm = ring_over(links::get("ib-edr"));
    const auto d = estimate(net, dev, cost::kernel{}, comm, data_parallel{4}, opt);
    const auto p = estimate(net, dev, cost::kernel{}, comm, data_parallel{4}, pipeline_parallel{1, 1, 1, ten_gbytes}, opt);
    CHECK(s(p.total) == doctest::Approx(s(d.total)).epsilon(1e-12));
    CHECK(s(p.forward) == doctest::Approx(s(d.forward)).epsilon(1e-12));
    CHECK(s(p.backward) == doctest::Approx(s(d.backward)).epsilon(1e-12));
    CHECK(s(p.update) == doctest::Approx(s(d.update)).epsilon(1e-12));
    CHECK(s(p.communication) == doctest::Approx(s(d.communication)).epsilon(1e-12));
    CHECK(s(p.bubble) == 0);
    CHECK(s(p.pipeline_communication) == 0);
    CHECK(p.batch == 128);
    CHECK(!p.pipelined());
}

TEST_CASE("pipeline: one stage of m micro-batches accumulates gradients: m passes, one update, one exchange") {
    const network net = zoo::resnet18();
    const device& dev = devices::get("a100-sxm4-40gb");
    const estimate_options opt{.batch = 16};
    const auto comm = ring_over(links::get("ib-hdr"));
    const auto one = estimate(net, dev, cost::kernel{}, comm, data_parallel{2}, opt);
    const auto acc = estimate(net, dev, cost::kernel{}, comm, data_parallel{2}, pipeline_parallel{1, 8, 1, ten_gbytes}, opt);
    CHECK(s(acc.forward) == doctest::Approx(8 * s(one.forward)).epsilon(1e-12));
    CHECK(s(acc.backward) == doctest::Approx(8 * s(one.backward)).epsilon(1e-12));
    CHECK(s(acc.update) == doctest::Approx(s(one.update)).epsilon(1e-12));
    CHECK(s(acc.communication) == doctest::Approx(s(one.communication)).epsilon(1e-12));
    CHECK(s(acc.bubble) == 0);  // one stage never waits
    CHECK(acc.batch_per_worker == 8 * 16);
    CHECK(acc.batch == 2 * 8 * 16);
    CHECK(acc.pipelined());
}

TEST_CASE("pipeline: 1F1B takes m max T + (sum T - max T), T a stage's passes and sends for one micro-batch") {
    const network net = chain(8);
    const device& dev = devices::get("v100-sxm2-16gb");
    const estimate_options opt{.batch = 64};
    const cost::roofline model;
    const int p = 4, m = 8;
    const auto e = estimate(net, dev, model, ring_over(ten_gbytes), data_parallel{1}, pipeline_parallel{p, m, 1, ten_gbytes}, opt);
    // By hand from one micro-batch's layer times and the stages the cut gives.
    const auto alone = estimate(net, dev, model, opt);
    const auto times = layer_times(alone);
    const auto chunk = detail::pipeline_chunks(net, times, p);
    for (std::size_t v = 1; v < chunk.size(); ++v) CHECK((chunk[v] == chunk[v - 1] || chunk[v] == chunk[v - 1] + 1));
    CHECK(chunk.front() == 0);
    CHECK(chunk.back() == p - 1);
    // A boundary sends one layer's output, 1024 FP32 features of 64 samples: 1 us + 262,144 B / 10 GB/s.
    const double send = 1e-6 + 1024.0 * 64 * 4 / 10e9;
    std::vector<double> busy(p);
    for (std::size_t v = 0; v < times.size(); ++v) busy[chunk[v]] += s(times[v]);
    for (int st = 0; st < p; ++st) busy[st] += (st > 0) * send + (st + 1 < p) * send;  // gradients back, activations on
    const double slowest = *std::max_element(busy.begin(), busy.end());
    double all = 0;
    for (double b : busy) all += b;
    CHECK(s(e.bubble) == doctest::Approx(all - slowest).epsilon(1e-12));
    CHECK(s(e.forward + e.backward + e.pipeline_communication) == doctest::Approx(m * slowest).epsilon(1e-12));
    CHECK(s(e.total - e.update) == doctest::Approx(m * slowest + all - slowest).epsilon(1e-12));
    // Equal stages make it Narayanan et al.'s (m + p - 1) T; the middle stages' two sends show in the busiest's.
    CHECK(s(e.pipeline_communication) == doctest::Approx(m * 2 * send).epsilon(1e-12));
    CHECK(e.parts.size() == static_cast<std::size_t>(p));
    CHECK(e.parts[1].name == "stage 2");
}

TEST_CASE("pipeline: a network without blocks is cut into runs of consecutive layers of near-equal time") {
    const network net = zoo::resnet50();
    const auto e = estimate(net, devices::get("a100-sxm4-40gb"), cost::kernel{}, {.batch = 64});
    const auto times = layer_times(e);
    double total = 0, longest = 0;
    for (seconds t : times) total += s(t), longest = std::max(longest, s(t));
    for (int k : {2, 3, 4, 8, 16}) {
        CAPTURE(k);
        const auto chunk = detail::pipeline_chunks(net, times, k);
        std::vector<double> sum(k);
        for (std::size_t v = 0; v < chunk.size(); ++v) {
            if (v > 0) CHECK((chunk[v] == chunk[v - 1] || chunk[v] == chunk[v - 1] + 1));
            sum[chunk[v]] += s(times[v]);
        }
        CHECK(chunk.back() == k - 1);  // none left empty
        // A cut lands within half a layer of its share, so no run exceeds its share by more than one layer.
        for (double c : sum) CHECK(c <= total / k + longest);
    }
    // Equal layers after a free input: the cuts fall at 2, 4 and 6 of 8 (layer i's middle is i - 1/2, chunk
    // floor((i - 1/2) / 2)), the input with the first.
    CHECK(detail::pipeline_chunks(chain(8), {seconds{}, 1_s, 1_s, 1_s, 1_s, 1_s, 1_s, 1_s, 1_s}, 4) ==
          std::vector<int>{0, 0, 0, 1, 1, 2, 2, 3, 3});
    // A free last layer sits at the very end of the running sum, and still in the last chunk.
    CHECK(detail::pipeline_chunks(chain(3), {1_s, 1_s, 1_s, seconds{}}, 2) == std::vector<int>{0, 1, 1, 1});
    // As many chunks as layers: one layer each; more is refused by name.
    const network small = chain(3);
    const auto one_each = detail::pipeline_chunks(small, std::vector<seconds>(4, seconds_of(1.0)), 4);
    CHECK(one_each == std::vector<int>{0, 1, 2, 3});
    CHECK_ERROR(invalid_model, detail::pipeline_chunks(small, std::vector<seconds>(4), 5), "'chain' has 4 layers",
                "5 pipeline chunks");
}

TEST_CASE("pipeline: a GPT's stages hold whole transformer layers, the embedding the first, the head the last") {
    const network net = zoo::gpt({8, 64, 4, 32, 128, false});
    const std::vector<seconds> none(net.size());
    const auto chunk = detail::pipeline_chunks(net, none, 4);  // 8 layers into 4 chunks of 2
    const auto at = [&](const char* layer) { return chunk[*net.find(layer)]; };
    CHECK(at("tokens") == 0);
    CHECK(at("embed") == 0);
    CHECK(at("layer2/add2") == 0);
    CHECK(at("layer3/ln1") == 1);
    CHECK(at("layer6/fc2") == 2);
    CHECK(at("layer7/ln1") == 3);
    CHECK(at("ln_f") == 3);
    CHECK(at("loss") == 3);
    CHECK_ERROR(invalid_model, detail::pipeline_chunks(net, none, 3), "8 blocks", "3 pipeline chunks");
}

TEST_CASE("pipeline: interleaving v chunks per stage divides the bubble by v and sends v times as often") {
    const network net = zoo::gpt({8, 64, 4, 32, 128, false});
    const device& dev = devices::get("a100-sxm4-80gb");
    const estimate_options opt{.batch = 4, .precision = element_type::fp16};
    const auto run = [&](int v, const network_link& l) {
        return estimate(net, dev, cost::paleo{}, ring_over(l), data_parallel{1}, pipeline_parallel{2, 4, v, l}, opt);
    };
    // Stage 1 holds chunks 1 and 3 (embedding and layers 1-2, layers 5-6), stage 2 chunks 2 and 4 (layers 3-4, 7-8
    // and the head): other layers than without interleaving (embedding and 1-4; 5-8 and the head), but equal ones,
    // so the same passes.
    const auto plain = run(1, instant), interleaved = run(2, instant);
    CHECK(s(interleaved.forward) == doctest::Approx(s(plain.forward)).epsilon(1e-9));
    CHECK(s(interleaved.backward) == doctest::Approx(s(plain.backward)).epsilon(1e-9));
    CHECK(s(interleaved.bubble) == doctest::Approx(s(plain.bubble) / 2).epsilon(1e-9));
    CHECK(s(plain.bubble) > 0);
    // Each boundary sends b s h = 4 x 32 x 64 FP16 values (16,384 B) each way. Without interleaving each stage sends
    // once a micro-batch; interleaved, each sends 3 times: stage 1 on from chunks 1 and 3 and back from chunk 3,
    // stage 2 on from chunk 2 and back from chunks 2 and 4; 4 micro-batches.
    const double send = 1e-6 + 16384 / 10e9;
    CHECK(s(run(1, ten_gbytes).pipeline_communication) == doctest::Approx(4 * 1 * send).epsilon(1e-9));
    CHECK(s(run(2, ten_gbytes).pipeline_communication) == doctest::Approx(4 * 3 * send).epsilon(1e-9));
    CHECK(run(2, instant).chunks_per_stage == 2);
}

TEST_CASE("pipeline: interleaved, stage s holds chunks s, s + p, ...: its weights, update and exchange") {
    // 4 blocks in 2 stages of 2 chunks: stage 1 holds fc1 and fc3, stage 2 fc2 and fc4 (not fc1 and fc2).
    // fc1 1024 x 100 + 100 = 102,500 and fc3 2000 x 300 + 300 = 600,300: 702,800; fc2 100 x 2000 + 2000 = 202,000 and
    // fc4 300 x 4000 + 4000 = 1,204,000: 1,406,000.
    const network net = blocks({100, 2000, 300, 4000});
    const device& dev = devices::get("v100-sxm2-16gb");
    const cost::paleo model;
    const auto e = estimate(net, dev, model, ring_over(ten_gbytes), data_parallel{2}, pipeline_parallel{2, 4, 2, ten_gbytes},
                            {.batch = 8});
    const cost_context ctx{dev, 8, element_type::fp32};
    CHECK(s(e.parts[0].update) == doctest::Approx(s(model.update(weights{702800}, ctx).total())).epsilon(1e-12));
    CHECK(s(e.parts[1].update) == doctest::Approx(s(model.update(weights{1406000}, ctx).total())).epsilon(1e-12));
    // A ring of 2 over 10 GB/s: 2 steps of half the FP32 gradients.
    CHECK(s(e.parts[0].sync) == doctest::Approx(2 * (1e-6 + 702800.0 * 4 / 2 / 10e9)).epsilon(1e-12));
    CHECK(e.parameters == 1406000);
    CHECK(e.gradient_bytes.value() == doctest::Approx(1406000.0 * 4));
    // In flight, the outputs a dense layer's gradient reads, in FP32: chunk 1 (fc1) holds x's and fc1's, 1024 + 100
    // values a micro-batch's sample, chunk 2 (fc2) 2000, chunk 3 (fc3) 300, chunk 4 (fc4) none (no layer reads it);
    // and chunks 2 to 4 their copies of what they receive, 100, 2000 and 300: 1124, 2100, 2300 and 300. At its
    // fullest (the in-flight test's cases) stage 1 holds 3 micro-batches of chunk 1 and 2 of chunk 3 (3 x 1124 +
    // 2 x 2300 = 7972 values, against 4 x 1124 + 2300 = 6796), 31,888 B a sample; stage 2 3 of chunk 2 (6300 values,
    // against 2 x 2100 + 300), 25,200 B. With FP32 weights and gradients (8 B each, SGD keeps no state), stage 1 limits the
    // micro-batch: in 16 GiB, (2^34 - 5,622,400) / 31,888 = 538,580 samples against (2^34 - 11,248,000) / 25,200 =
    // 681,294.
    CHECK(e.memory.activations.value() == doctest::Approx(8 * 31888.0));
    CHECK(e.memory.weights.value() == doctest::Approx(702800.0 * 4));
    CHECK(e.memory.total().value() == doctest::Approx(702800.0 * 8 + 8 * 31888));
    CHECK(e.memory.largest_samples() == 538580);
    CHECK(e.memory.buffers.value() == 0);  // Megatron-LM's local DDP: no buckets
}

TEST_CASE("pipeline: the micro-batches in flight on each chunk of a stage (Megatron-LM's schedules)") {
    using counts = std::vector<std::int64_t>;
    const std::vector<double> one{1}, equal{1, 1, 1};
    // 1F1B: min(m, p - s) on a stage's one chunk.
    CHECK(detail::in_flight(4, 1, 8, 0, one) == counts{4});
    CHECK(detail::in_flight(4, 1, 2, 1, one) == counts{2});
    // Interleaved, 4 stages of 3 equal chunks, 8 micro-batches: stage 1 runs 2 x 3 + 2 x 4 = 14 chunk forward passes,
    // then a 15th before its first backward pass, rounds of 4 on each chunk: 4 + 3, 4, 4. That is 5 micro-batches'
    // worth, Korthikanti et al.'s p (1 + (p - 1) / (p v)) = 4 (1 + 3 / 12). Stage 4 runs 2 x 4 + 1 = 9.
    CHECK(detail::in_flight(4, 3, 8, 0, equal) == counts{7, 4, 4});
    CHECK(detail::in_flight(4, 3, 8, 3, equal) == counts{4, 4, 1});
    // With as many micro-batches as stages, Megatron-LM's SC21 code runs every forward pass first, on every stage.
    CHECK(detail::in_flight(4, 3, 4, 0, equal) == counts{4, 4, 4});
    CHECK(detail::in_flight(4, 3, 4, 3, equal) == counts{4, 4, 4});
    // Unequal chunks, 2 stages of 2, 4 micro-batches. Stage 1's warm-up is 2 + 2 passes (chunks 1, 1, 2, 2), then
    // forward (chunk) and backward [chunk]: 1 [2] 1 [2] 2 [1] 2 [1]. The counts after each forward pass are (3, 2),
    // (4, 1), (4, 1), (3, 2): with 10 a micro-batch on chunk 1 and 1 on chunk 2, (4, 1) holds the most. Stage 2's
    // warm-up is 2 passes (chunk 1 twice), then 2 [2] 2 [2] 1 [1] 1 [1]: (2, 1), (2, 1), (3, 0), (3, 0).
    CHECK(detail::in_flight(2, 2, 4, 0, std::vector<double>{10, 1}) == counts{4, 1});
    CHECK(detail::in_flight(2, 2, 4, 0, std::vector<double>{1, 10}) == counts{3, 2});
    CHECK(detail::in_flight(2, 2, 4, 1, std::vector<double>{10, 1}) == counts{3, 0});
    CHECK(detail::in_flight(2, 2, 4, 1, std::vector<double>{1, 10}) == counts{2, 1});
}

TEST_CASE("pipeline: with recompute, a stage keeps each transformer layer's output per micro-batch in flight") {
    // 4 layers of s x h = 32 x 64 = 2048 in 2 stages, 4 micro-batches of 2, FP16. Each stage rebuilds one layer at a
    // time, 15 x 2048 x 2 + 2 x 2048 + 20480 = 86016 bytes a sample (graph_test's GPT case). Stage 1 keeps the
    // embedding dropout's output (the first layer's checkpoint; the tokens and the embedding's output no gradient
    // reads) and its mask, and its 2 layers' outputs, 3 x 2048 x 2 + 2048 = 14336 bytes, for min(4, 2) micro-batches
    // in flight: 2 x 14336 + 86016 = 114688. Stage 2 keeps the copy it receives of stage 1's last output, its 2 layers'
    // outputs and ln_f's, 4 x 2048 x 2, and the loss's FP32 probabilities over the 32 x 128 logits (Megatron's FP32
    // loss), 16384, for its 1 in flight: 32768 + 86016 = 118784. A layer has 12 h^2 + 13 h = 49,984 weights, stage 1
    // the embedding's 128 x 64 + 32 x 64 = 10,240 more (110,208), stage 2 ln_f's 128 and the tied table's copy, 8,192
    // (108,288). At 10 bytes a weight (FP32 and its half copy, an FP32 gradient, SGD), stage 2 holds 1,082,880 + 2 x
    // 118,784 = 1,320,448 bytes, less than stage 1's 1,102,080 + 2 x 114,688 = 1,331,456, but it is the limit: in
    // 80 GiB it takes (80 x 2^30 - 1,082,880) / 118,784 = 723,146 samples, stage 1 (80 x 2^30 - 1,102,080) / 114,688 =
    // 748,973.
    const network net = zoo::gpt({4, 64, 4, 32, 128, true});
    const auto e = estimate(net, devices::get("a100-sxm4-80gb"), cost::kernel{}, ring_over(instant), data_parallel{1},
                            pipeline_parallel{2, 4, 1, instant}, {.batch = 2, .precision = element_type::fp16});
    CHECK(e.memory.weights.value() == 108288.0 * 6);
    CHECK(e.memory.activations.value() == 118784.0 * 2);
    CHECK(e.memory.total().value() == 1320448.0);
    CHECK(e.memory.largest_samples() == 723146);
    CHECK(e.memory.samples == 2);  // a micro-batch
}

TEST_CASE("pipeline: tensor-parallel stages send a slice each and all-gather it (Megatron-LM's scatter-gather)") {
    zoo::gpt_config g{4, 64, 4, 32, 128, false};
    g.tensor_parallel = 2;
    const network net = zoo::gpt(g);
    const device& dev = devices::get("a100-sxm4-80gb");  // its intra-node link: 300 GB/s NVLink, 2 us a step
    const estimate_options opt{.batch = 4, .precision = element_type::fp16};
    const auto e = estimate(net, dev, cost::paleo{}, ring_over(ten_gbytes), data_parallel{1},
                            pipeline_parallel{2, 3, 1, ten_gbytes}, opt);
    // 16,384 B to send: each of the 2 GPUs sends 8,192 B over the 10 GB/s link, then 1 all-gather step of 8,192 B
    // over NVLink; one send per stage per micro-batch, 3 micro-batches.
    const double send = (1e-6 + 8192 / 10e9) + (2e-6 + 8192 / 300e9);
    CHECK(s(e.pipeline_communication) == doctest::Approx(3 * send).epsilon(1e-12));
    CHECK(e.gpus_per_worker() == 4);
    // The group's all-reduces are the busiest stage's, over all its micro-batches: 2 a layer each way (ring of 2,
    // 2 x (2 us + 8,192 B / 300 GB/s)), 2 layers a stage, plus the head's input gradient going backward (stage 2)
    // or the embedding's output going forward (stage 1): 9 rings a micro-batch, x 3.
    const double ring = 2 * (2e-6 + 8192 / 300e9);
    CHECK(s(e.group_communication) == doctest::Approx(3 * 9 * ring).epsilon(1e-12));
}

TEST_CASE("pipeline: each stage updates its own weights; replicas all-reduce each stage's gradients after the flush") {
    // GPT with h = 64, V = 128, s = 32: a transformer layer holds 12 h^2 + 13 h = 49,984 parameters; the first stage
    // the embedding's (V + s) h = 10,240 and 2 layers, 110,208; the last 2 layers, ln_f's 2h and its copy of the token
    // table for the tied logits, V h = 8,192: 108,288.
    const network net = zoo::gpt({4, 64, 4, 32, 128, false});
    const device& dev = devices::get("a100-sxm4-80gb");
    const estimate_options opt{.batch = 2, .precision = element_type::fp16, .gradients = element_type::fp16};
    const cost::kernel model;
    const auto e = estimate(net, dev, model, ring_over(ten_gbytes), data_parallel{4}, pipeline_parallel{2, 6, 1, ten_gbytes}, opt);
    // Ring of 4 over the 10 GB/s link: 2 x 3 steps of a quarter of 110,208 FP16 gradients; then the two stages'
    // tables all-reduce their 8,192 gradients, a ring of 2: 2 x (1 us + 8,192 B / 10 GB/s).
    const double tied = 2 * (1e-6 + 8192.0 * 2 / 2 / 10e9);
    const double sync = 6 * (1e-6 + 110208.0 * 2 / 4 / 10e9) + tied;
    CHECK(s(e.communication) == doctest::Approx(sync).epsilon(1e-12));
    CHECK(s(e.exposed_communication) == doctest::Approx(sync).epsilon(1e-12));
    CHECK(s(e.parts[1].sync) == doctest::Approx(6 * (1e-6 + 108288.0 * 2 / 4 / 10e9) + tied).epsilon(1e-12));
    CHECK(e.gradient_bytes.value() == doctest::Approx(110208.0 * 2));
    CHECK(e.parameters == 110208);
    // The host's work in FP16 counts each stage's weight tensors: a transformer layer's two layer norms and four
    // linear layers hold 12 (a scale and a shift, a weight and a bias each); the first stage adds the token and
    // position tables, 26; the last ln_f's 2 and its copy of the token table, 27.
    const cost_context ctx{dev, 2, element_type::fp16};
    CHECK(s(e.parts[0].update) == doctest::Approx(s(model.update(weights{110208, 26}, ctx).total())).epsilon(1e-12));
    CHECK(s(e.parts[1].update) == doctest::Approx(s(model.update(weights{108288, 27}, ctx).total())).epsilon(1e-12));
    CHECK(e.update == std::max(e.parts[0].update, e.parts[1].update));  // the slowest stage's
    CHECK(s(e.total) == doctest::Approx(s(e.forward + e.backward + e.pipeline_communication + e.bubble + e.update +
                                         e.exposed_communication)).epsilon(1e-12));
    CHECK(e.batch == 4 * 6 * 2);
}

TEST_CASE("pipeline: what it refuses, by name") {
    const network net = zoo::gpt({4, 64, 4, 32, 128, false});
    const device& dev = devices::get("a100-sxm4-80gb");
    const auto comm = ring_over(ten_gbytes);
    const auto run = [&](data_parallel dp, pipeline_parallel pp) {
        return estimate(net, dev, cost::kernel{}, comm, dp, pp, {.batch = 2});
    };
    CHECK_ERROR(invalid_argument, run({1}, {0, 1, 1, ten_gbytes}), "pipeline stages is 0");
    CHECK_ERROR(invalid_argument, run({1}, {2, 0, 1, ten_gbytes}), "micro-batches is 0");
    CHECK_ERROR(invalid_argument, run({1}, {2, 1, 0, ten_gbytes}), "chunks per stage is 0");
    CHECK_ERROR(invalid_argument, run({2, scaling::strong}, {2, 4, 1, ten_gbytes}), "weak scaling");
    CHECK_ERROR(invalid_argument, run({2, scaling::weak, overlap::backward}, {2, 4, 1, ten_gbytes}), "after its flush");
    CHECK_ERROR(invalid_argument, run({1}, {2, 4, 1, network_link{"dead", {}, {}, ""}}), "link 'dead'");
    CHECK_ERROR(invalid_model, run({1}, {3, 4, 1, ten_gbytes}), "4 blocks", "3 pipeline chunks");
    // The interleaved schedule runs rounds of one micro-batch per stage, on 2 or more stages.
    CHECK_ERROR(invalid_argument, run({1}, {1, 4, 2, ten_gbytes}), "needs 2 or more stages");
    CHECK_ERROR(invalid_argument, run({1}, {2, 3, 2, ten_gbytes}), "(3 over 2)");
    // p v beyond an int: refused by the cut, not wrapped.
    CHECK_ERROR(invalid_model, run({1}, {65536, 65536, 65536, ten_gbytes}), "too few for 4294967296 pipeline chunks");
    // Blocks out of layer order would send backwards.
    network shuffled = blocks({8, 8});
    shuffled.set_block(*shuffled.find("fc2"), 0);
    shuffled.set_block(*shuffled.find("fc1"), 2);
    shuffled.set_block(*shuffled.find("fc2"), 1);
    CHECK_ERROR(invalid_model, detail::pipeline_chunks(shuffled, std::vector<seconds>(3), 2), "layer 'fc2' is in block 1");
    CHECK_ERROR(unsupported_operation,
                estimate(net, dev, cost::paleo_compat{}, comm, data_parallel{1}, pipeline_parallel{2, 4, 1, ten_gbytes}),
                "PALEO has no pipeline");
}
