// Operations (ops/): output shape, parameter count, and the FLOPs and bytes of each phase, every number
// derived by hand from the operation's definition; and the errors, naming the layer and the shapes.
// Work is for the whole batch, fp32 (4 bytes per element) unless said otherwise.
#include <doctest/doctest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>
#include <steptime/io.hpp>
#include "support/errors.hpp"

using namespace steptime;
using ops::extent;
using ops::padding;

namespace {

using test_support::message_of;

using shapes = std::vector<tensor_shape>;
tensor_shape img(std::int64_t h, std::int64_t w, std::int64_t c) { return tensor_shape::image(h, w, c); }
tensor_shape vec(std::int64_t n) { return tensor_shape::features(n); }

// An operation applied to its inputs: the inferred output and parameter count, then its work per phase.
struct applied {
    shapes in;
    tensor_shape out;
    std::int64_t params = 0;
};
template <class Op>
applied applied_to(const Op& op, shapes in) {
    const tensor_shape out = op.infer(in, "layer");
    const std::int64_t params = op.parameters(in);
    return {std::move(in), out, params};
}
template <class Op>
op_work work(const Op& op, phase p, const applied& a, double batch, double element_bytes = 4) {
    return op.work(p, work_args{a.in, a.out, batch, element_bytes, a.params});
}
// The forward pass in inference mode.
template <class Op>
op_work inference_work(const Op& op, const applied& a, double batch) {
    return op.work(phase::forward, work_args{a.in, a.out, batch, 4, a.params, /*inference=*/true});
}

ops::conv2d conv(std::int64_t filters, extent k, extent stride, padding pad) {
    ops::conv2d c;
    c.filters = filters;
    c.kernel = k;
    c.stride = stride;
    c.pad = pad;
    return c;
}
ops::pool2d pool(ops::pool2d::method m, extent k, extent stride, padding pad) {
    ops::pool2d p;
    p.type = m;
    p.window = k;
    p.stride = stride;
    p.pad = pad;
    return p;
}

}  // namespace

// One phase's work: FLOPs, bytes read, bytes written.
#define CHECK_WORK(w, f, r, wr)          \
    do {                                 \
        const op_work w_ = (w);          \
        CHECK(w_.flops == (f));          \
        CHECK(w_.bytes_read == (r));     \
        CHECK(w_.bytes_written == (wr)); \
    } while (0)

// `expr` throws invalid_model whose message contains every listed part.
#define CHECK_INVALID(expr, ...)                                                            \
    do {                                                                                    \
        const std::string m_ = message_of<invalid_model>([&] { (void)(expr); });            \
        INFO("message: " << m_);                                                            \
        CHECK_MESSAGE(!m_.starts_with("<"), "expected invalid_model");                      \
        for (std::string_view part_ : std::initializer_list<std::string_view>{__VA_ARGS__}) \
            CHECK_MESSAGE(m_.find(part_) != std::string::npos, "message lacks: " << part_); \
    } while (0)

TEST_CASE("input: its shape, no parameters, no work") {
    const ops::input op{img(224, 224, 3)};
    const auto a = applied_to(op, {});
    CHECK(a.out.str() == "224x224x3");
    CHECK(a.params == 0);
    for (auto p : {phase::forward, phase::backward_data, phase::backward_weights}) CHECK_WORK(work(op, p, a, 128), 0, 0, 0);
    CHECK_INVALID(op.infer(shapes{img(1, 1, 1)}, "data"), "layer 'data'", "expects 0 inputs, got 1");
    CHECK_INVALID((ops::input{img(0, 224, 3)}.infer({}, "data")), "layer 'data'", "dimension 0 is 0");
}

TEST_CASE("conv2d: 3x3 SAME, 64 -> 128 channels on 56x56, batch 8") {
    const auto op = conv(128, {3, 3}, {1, 1}, padding::same());
    const auto a = applied_to(op, {img(56, 56, 64)});
    CHECK(a.out.str() == "56x56x128");  // SAME, stride 1: ceil(56 / 1)
    CHECK(a.params == 73'856);          // 3*3*64*128 weights + 128 biases = 73,728 + 128
    // x = 56*56*64*8 = 1,605,632 input elements; y = 56*56*128*8 = 3,211,264 outputs; w = 73,856.
    // forward: 2 * 3*3*64 * 56*56*128 * 8 = 3,699,376,128 + one bias add per output (3,211,264)
    //          = 3,702,587,392; reads 4 (x + w) = 6,717,952; writes 4 y = 12,845,056.
    CHECK_WORK(work(op, phase::forward, a, 8), 3'702'587'392.0, 6'717'952.0, 12'845'056.0);
    // data gradient: the same 3,699,376,128 multiply-adds x 2, no bias; reads dy and w: 4 (y + w) = 13,140,480;
    // writes dx: 4 x = 6,422,528.
    CHECK_WORK(work(op, phase::backward_data, a, 8), 3'699'376'128.0, 13'140'480.0, 6'422'528.0);
    // weight gradient: 3,699,376,128 + bias gradient (one add per output) = 3,702,587,392;
    // reads x and dy: 4 (x + y) = 19,267,584; writes dw: 4 w = 295,424.
    CHECK_WORK(work(op, phase::backward_weights, a, 8), 3'702'587'392.0, 19'267'584.0, 295'424.0);
    // fp16 (2 bytes per element) halves every byte count and no FLOP count.
    CHECK_WORK(work(op, phase::forward, a, 8, 2), 3'702'587'392.0, 3'358'976.0, 6'422'528.0);
}

TEST_CASE("conv2d geometry: stride, SAME, VALID, explicit padding, dilation, non-square kernels") {
    const shapes in{img(7, 7, 16)};
    // SAME: ceil(7 / 2) = 4. VALID: (7 - 3) / 2 + 1 = 3. Explicit 1: (7 + 2 - 3) / 2 + 1 = 4.
    CHECK(applied_to(conv(8, {3, 3}, {2, 2}, padding::same()), in).out.str() == "4x4x8");
    CHECK(applied_to(conv(8, {3, 3}, {2, 2}, padding::valid()), in).out.str() == "3x3x8");
    CHECK(applied_to(conv(8, {3, 3}, {2, 2}, padding::explicit_pads(1, 1)), in).out.str() == "4x4x8");
    // Explicit pads per dimension: h = 7 + 2*2 - 3 + 1 = 9, w = 7 - 3 + 1 = 5.
    CHECK(applied_to(conv(8, {3, 3}, {1, 1}, padding::explicit_pads(2, 0)), in).out.str() == "9x5x8");
    // Stride per dimension: h = (7 - 3) / 1 + 1 = 5, w = (7 - 3) / 2 + 1 = 3.
    CHECK(applied_to(conv(8, {3, 3}, {1, 2}, padding::valid()), in).out.str() == "5x3x8");
    // 1x7 (inception_v3 Mixed_6b): SAME keeps 7x7; VALID gives 7 x (7 - 7 + 1).
    CHECK(applied_to(conv(8, {1, 7}, {1, 1}, padding::same()), in).out.str() == "7x7x8");
    CHECK(applied_to(conv(8, {1, 7}, {1, 1}, padding::valid()), in).out.str() == "7x1x8");

    SUBCASE("dilation 2 spreads a 3x3 kernel over 5x5 but keeps its 9 taps") {
        auto op = conv(8, {3, 3}, {1, 1}, padding::valid());
        op.dilation = {2, 2};
        const auto a = applied_to(op, in);
        CHECK(a.out.str() == "3x3x8");  // effective kernel (3-1)*2+1 = 5: 7 - 5 + 1 = 3
        CHECK(a.params == 1'160);      // 3*3*16*8 + 8, as undilated
        // 2 * 3*3*16 * 3*3*8 * 1 = 20,736 + 72 biases; reads 4 (7*7*16 + 1,160) = 7,776; writes 4 * 72 = 288.
        CHECK_WORK(work(op, phase::forward, a, 1), 20'808.0, 7'776.0, 288.0);
        op.pad = padding::same();
        CHECK(applied_to(op, in).out.str() == "7x7x8");  // SAME: ceil(7 / 1), whatever the dilation
    }
}

TEST_CASE("conv2d groups: each filter sees C / groups channels") {
    auto op = conv(64, {3, 3}, {1, 1}, padding::same());
    op.groups = 4;
    const auto a = applied_to(op, {img(14, 14, 32)});
    CHECK(a.out.str() == "14x14x64");
    CHECK(a.params == 4'672);  // 3*3*(32/4)*64 + 64 = 4,608 + 64
    // 2 * 3*3*8 * 14*14*64 * 2 = 3,612,672 + 14*14*64*2 = 25,088 biases = 3,637,760
    CHECK(work(op, phase::forward, a, 2).flops == 3'637'760.0);
    CHECK(work(op, phase::backward_data, a, 2).flops == 3'612'672.0);

    op.bias = false;
    CHECK(applied_to(op, {img(14, 14, 32)}).params == 4'608);
    CHECK(work(op, phase::forward, applied_to(op, {img(14, 14, 32)}), 2).flops == 3'612'672.0);

    // Depthwise (groups = channels = filters): 3*3*1*32 + 32 = 320 parameters.
    auto dw = conv(32, {3, 3}, {1, 1}, padding::same());
    dw.groups = 32;
    CHECK(applied_to(dw, {img(14, 14, 32)}).params == 320);
}

TEST_CASE("conv2d errors name the layer and the shapes") {
    CHECK_INVALID(conv(8, {5, 5}, {1, 1}, padding::valid()).infer(shapes{img(3, 3, 16)}, "conv_big"), "layer 'conv_big'",
                  "window of 5", "input of 3");
    CHECK_INVALID(conv(8, {5, 5}, {1, 1}, padding::explicit_pads(0, 0)).infer(shapes{img(3, 3, 16)}, "conv_pad"),
                  "layer 'conv_pad'", "window of 5", "input of 3");
    auto typed = conv(8, {3, 3}, {1, 1}, padding::same());
    typed.in_channels = 16;
    CHECK_INVALID(typed.infer(shapes{img(8, 8, 32)}, "conv_c"), "layer 'conv_c'", "16 input channels", "8x8x32");
    auto grouped = conv(48, {3, 3}, {1, 1}, padding::same());
    grouped.groups = 3;  // 32 channels do not split into 3 groups
    CHECK_INVALID(grouped.infer(shapes{img(8, 8, 32)}, "conv_g"), "layer 'conv_g'", "3 groups", "32 input channels");
    grouped.filters = 30;
    grouped.groups = 4;  // 32 channels do, 30 filters do not
    CHECK_INVALID(grouped.infer(shapes{img(8, 8, 32)}, "conv_f"), "layer 'conv_f'", "30 filters", "4 groups");
    CHECK_INVALID(typed.infer(shapes{vec(100)}, "conv_v"), "layer 'conv_v'", "image", "100");
    CHECK_INVALID(typed.infer(shapes{img(8, 8, 16), img(8, 8, 16)}, "conv_2"), "layer 'conv_2'", "expects 1 input, got 2");
}

TEST_CASE("deconv2d: the transposed convolution") {
    ops::deconv2d op;
    op.filters = 32;
    op.kernel = {3, 3};
    op.stride = {2, 2};
    op.pad = padding::same();
    const shapes in{img(7, 7, 64)};
    const auto a = applied_to(op, in);
    CHECK(a.out.str() == "14x14x32");  // SAME: 7 * 2
    CHECK(a.params == 18'464);         // 3*3*64*32 + 32 = 18,432 + 32
    // x = 7*7*64*2 = 6,272; y = 14*14*32*2 = 12,544; w = 18,464.
    // Each input element meets 3*3*32 taps: 2 * 3*3*32 * 6,272 = 3,612,672 (+ y bias adds = 3,625,216).
    CHECK_WORK(work(op, phase::forward, a, 2), 3'625'216.0, 4.0 * (6'272 + 18'464), 4.0 * 12'544);
    CHECK_WORK(work(op, phase::backward_data, a, 2), 3'612'672.0, 4.0 * (12'544 + 18'464), 4.0 * 6'272);
    CHECK_WORK(work(op, phase::backward_weights, a, 2), 3'625'216.0, 4.0 * (6'272 + 12'544), 4.0 * 18'464);

    // VALID: (7 - 1) * 2 + 3 = 15; explicit pad 1: 15 - 2 = 13.
    op.pad = padding::valid();
    CHECK(applied_to(op, in).out.str() == "15x15x32");
    op.pad = padding::explicit_pads(1, 1);
    CHECK(applied_to(op, in).out.str() == "13x13x32");

    // It is the data gradient of the conv it transposes: conv 3x3/2 SAME 14x14x32 -> 7x7x64 costs, going
    // back, 2 * 3*3*32 * 7*7*64 * 2 = 3,612,672 FLOPs: the deconvolution's forward pass without bias.
    op.pad = padding::same();
    op.bias = false;
    const auto fwd = conv(64, {3, 3}, {2, 2}, padding::same());
    const auto c = applied_to(fwd, {img(14, 14, 32)});
    CHECK(c.out.str() == "7x7x64");
    CHECK(work(op, phase::forward, applied_to(op, in), 2).flops == work(fwd, phase::backward_data, c, 2).flops);

    op.pad = padding::explicit_pads(1, 1);
    op.kernel = {1, 1};
    op.stride = {1, 1};  // (1 - 1) * 1 + 1 - 2 = -1 rows
    CHECK_INVALID(op.infer(shapes{img(1, 1, 8)}, "deconv_p"), "layer 'deconv_p'", "-1x-1");
}

TEST_CASE("pool2d: max, average, global") {
    using m = ops::pool2d::method;
    // AlexNet pool1 (alex_v2): 3x3/2 VALID on conv1's 54x54x64: (54 - 3) / 2 + 1 = 26.
    const auto mx = pool(m::max, {3, 3}, {2, 2}, padding::valid());
    const auto a = applied_to(mx, {img(54, 54, 64)});
    CHECK(a.out.str() == "26x26x64");
    CHECK(a.params == 0);
    // batch 2: x = 54*54*64*2 = 373,248; y = 26*26*64*2 = 86,528. One compare per window element: 9 y = 778,752.
    CHECK_WORK(work(mx, phase::forward, a, 2), 778'752.0, 4.0 * 373'248, 4.0 * 86'528);
    // Max pooling's gradient re-reads the input to find each maximum: reads 4 (y + x), writes 4 x.
    CHECK_WORK(work(mx, phase::backward_data, a, 2), 778'752.0, 4.0 * (86'528 + 373'248), 4.0 * 373'248);
    CHECK_WORK(work(mx, phase::backward_weights, a, 2), 0, 0, 0);
    // Average pooling's gradient only spreads dy: reads 4 y.
    const auto avg = pool(m::average, {3, 3}, {2, 2}, padding::valid());
    CHECK_WORK(work(avg, phase::backward_data, applied_to(avg, {img(54, 54, 64)}), 2), 778'752.0, 4.0 * 86'528,
               4.0 * 373'248);
    // SAME: ceil(35 / 2) = 18 (inception_v3's 35x35 grid).
    CHECK(applied_to(pool(m::max, {3, 3}, {2, 2}, padding::same()), {img(35, 35, 288)}).out.str() == "18x18x288");

    // Global average over 8x8x2048 (inception_v3's last grid): one 8x8 window, 64 adds per output.
    ops::pool2d global;
    global.type = m::average;
    global.global = true;
    const auto g = applied_to(global, {img(8, 8, 2048)});
    CHECK(g.out.str() == "1x1x2048");
    CHECK_WORK(work(global, phase::forward, g, 1), 64.0 * 2048, 4.0 * 8 * 8 * 2048, 4.0 * 2048);

    CHECK_INVALID(mx.infer(shapes{img(2, 2, 8)}, "pool_small"), "layer 'pool_small'", "window of 3", "input of 2");
}

TEST_CASE("dense: flattens its input; forward, data and weight gradients are one GEMM each") {
    ops::dense op;
    op.outputs = 4096;
    // AlexNet-style fc6 on 6x6x256: D = 9,216 inputs, M = 4,096 outputs.
    const auto a = applied_to(op, {img(6, 6, 256)});
    CHECK(a.out.str() == "4096");
    CHECK(a.params == 37'752'832);  // 9,216 * 4,096 + 4,096 = 37,748,736 + 4,096
    // batch 2: x = 18,432, y = 8,192, w = 37,752,832; GEMM 2 * 9,216 * 4,096 * 2 = 150,994,944.
    CHECK_WORK(work(op, phase::forward, a, 2), 150'994'944.0 + 8'192, 4.0 * (18'432 + 37'752'832), 4.0 * 8'192);
    CHECK_WORK(work(op, phase::backward_data, a, 2), 150'994'944.0, 4.0 * (8'192 + 37'752'832), 4.0 * 18'432);
    CHECK_WORK(work(op, phase::backward_weights, a, 2), 150'994'944.0 + 8'192, 4.0 * (18'432 + 8'192),
               4.0 * 37'752'832);
    CHECK(applied_to(op, {vec(9216)}).params == 37'752'832);  // a feature vector gives the same layer
    op.bias = false;
    CHECK(applied_to(op, {vec(9216)}).params == 37'748'736);
    op.outputs = 0;
    CHECK_INVALID(op.infer(shapes{vec(10)}, "fc_zero"), "layer 'fc_zero'", "num_outputs is 0");
}

TEST_CASE("lrn: 2*size + 3 operations per element") {
    const ops::lrn op{5};
    // AlexNet's norm1 grid 27x27x96, batch 2: x = 139,968 elements; 13 x = 1,819,584 FLOPs.
    const auto a = applied_to(op, {img(27, 27, 96)});
    CHECK(a.out.str() == "27x27x96");
    CHECK(a.params == 0);
    CHECK_WORK(work(op, phase::forward, a, 2), 1'819'584.0, 4.0 * 139'968, 4.0 * 139'968);
    // backward: twice the arithmetic; reads input, output and gradient (3 tensors), writes one.
    CHECK_WORK(work(op, phase::backward_data, a, 2), 3'639'168.0, 12.0 * 139'968, 4.0 * 139'968);
    CHECK_WORK(work(op, phase::backward_weights, a, 2), 0, 0, 0);
    CHECK_INVALID(ops::lrn{0}.infer(shapes{img(3, 3, 3)}, "norm0"), "layer 'norm0'", "local_size is 0");
}

TEST_CASE("batch_norm: a scale and a shift per channel") {
    const ops::batch_norm op;
    const auto a = applied_to(op, {img(28, 28, 256)});
    CHECK(a.out.str() == "28x28x256");
    CHECK(a.params == 512);  // 2 * 256 channels
    // batch 2: x = 28*28*256*2 = 401,408. Forward 7 per element, reads x twice (statistics, then normalize).
    CHECK_WORK(work(op, phase::forward, a, 2), 7.0 * 401'408, 8.0 * 401'408, 4.0 * 401'408);
    // Data gradient: 5 per element from x and dy (2 tensors read), writes dx.
    CHECK_WORK(work(op, phase::backward_data, a, 2), 5.0 * 401'408, 8.0 * 401'408, 4.0 * 401'408);
    // Scale/shift gradients: reductions of dy and dy * x-hat, 3 per element over x and dy; writes 512 floats.
    CHECK_WORK(work(op, phase::backward_weights, a, 2), 3.0 * 401'408, 8.0 * 401'408, 4.0 * 512);
    // Inference: running statistics, so one pass: subtract, multiply, scale, shift (4 per element), x read once.
    CHECK_WORK(inference_work(op, a, 2), 4.0 * 401'408, 4.0 * 401'408, 4.0 * 401'408);
}

TEST_CASE("activation: per-element cost by function") {
    using f = ops::activation::function;
    // 1,000 features, batch 4: 4,000 elements; forward reads and writes 16,000 bytes.
    const auto a = applied_to(ops::activation{f::relu}, {vec(1000)});
    CHECK(a.out.str() == "1000");
    CHECK(a.params == 0);
    CHECK_WORK(work(ops::activation{f::relu}, phase::forward, a, 4), 4'000.0, 16'000.0, 16'000.0);
    // Gradient: one more operation per element than forward; reads x (or y) and dy.
    CHECK_WORK(work(ops::activation{f::relu}, phase::backward_data, a, 4), 8'000.0, 32'000.0, 16'000.0);
    CHECK(work(ops::activation{f::sigmoid}, phase::forward, a, 4).flops == 16'000.0);        // 4 per element
    CHECK(work(ops::activation{f::sigmoid}, phase::backward_data, a, 4).flops == 20'000.0);  // 4 + 1
    CHECK(work(ops::activation{f::gelu}, phase::forward, a, 4).flops == 32'000.0);           // 8 per element
    CHECK_WORK(work(ops::activation{f::relu}, phase::backward_weights, a, 4), 0, 0, 0);
}

TEST_CASE("dropout: one operation per element and a one-byte mask") {
    const ops::dropout op{0.5};
    const auto a = applied_to(op, {vec(1000)});
    CHECK(a.out.str() == "1000");
    // batch 4: 4,000 elements; forward writes the output (16,000 B) and the mask (4,000 B).
    CHECK_WORK(work(op, phase::forward, a, 4), 4'000.0, 16'000.0, 20'000.0);
    CHECK_WORK(work(op, phase::backward_data, a, 4), 4'000.0, 20'000.0, 16'000.0);
    CHECK_WORK(inference_work(op, a, 4), 0, 0, 0);  // inference returns the input: no kernel
    CHECK_INVALID(ops::dropout{0.0}.infer(shapes{vec(10)}, "drop0"), "layer 'drop0'", "keep probability");
    CHECK_INVALID(ops::dropout{1.5}.infer(shapes{vec(10)}, "drop15"), "layer 'drop15'", "keep probability");
}

TEST_CASE("softmax and softmax_cross_entropy") {
    // A 1x1x1000 logits image (a conv-written classifier) becomes 1,000 features.
    const ops::softmax sm{1000};
    const auto a = applied_to(sm, {img(1, 1, 1000)});
    CHECK(a.out.str() == "1000");
    // batch 4: 4,000 elements; 5 per element forward, 4 backward.
    CHECK_WORK(work(sm, phase::forward, a, 4), 20'000.0, 16'000.0, 16'000.0);
    CHECK_WORK(work(sm, phase::backward_data, a, 4), 16'000.0, 32'000.0, 16'000.0);
    CHECK_INVALID(ops::softmax{10}.infer(shapes{img(1, 1, 1000)}, "prob"), "layer 'prob'", "10 classes", "1x1x1000");

    const ops::softmax_cross_entropy loss;
    const auto l = applied_to(loss, {vec(1000)});
    CHECK(l.out.str() == "1");  // one loss value per sample
    // 6 per logit forward; keeps the probabilities (16,000 B) and writes 4 losses (16 B).
    CHECK_WORK(work(loss, phase::forward, l, 4), 24'000.0, 16'000.0, 16'016.0);
    CHECK_WORK(work(loss, phase::backward_data, l, 4), 4'000.0, 16'000.0, 16'000.0);  // dx = p - onehot
    // Megatron-LM's FP32 passes over FP16 logits, 4,000 of them: forward reads 2 B each to cast and 4 B each for
    // max, subtract, exp, sum and divide (22 B), writes 4 B each for the cast, subtract, exp and divide and 4 FP32
    // losses (64,016 B); backward scales in place (reads and writes 4 B) and casts back (reads 4 B, writes 2).
    const ops::softmax_cross_entropy fp32_loss{true};
    CHECK_WORK(work(fp32_loss, phase::forward, l, 4, 2), 24'000.0, 88'000.0, 64'016.0);
    CHECK_WORK(work(fp32_loss, phase::backward_data, l, 4, 2), 4'000.0, 32'000.0, 24'000.0);
}

TEST_CASE("concat: a copy into the joint tensor") {
    const ops::concat op{2};
    // Three inception branches on the 35x35 grid: 64 + 96 + 32 = 192 channels.
    const auto a = applied_to(op, {img(35, 35, 64), img(35, 35, 96), img(35, 35, 32)});
    CHECK(a.out.str() == "35x35x192");
    CHECK(a.params == 0);
    // batch 2: y = 35*35*192*2 = 470,400 elements, read and written once (1,881,600 B each way).
    CHECK_WORK(work(op, phase::forward, a, 2), 0, 1'881'600.0, 1'881'600.0);
    CHECK_WORK(work(op, phase::backward_data, a, 2), 0, 1'881'600.0, 1'881'600.0);
    // Along the height: 35 + 17 rows.
    CHECK(applied_to(ops::concat{0}, {img(35, 20, 8), img(17, 20, 8)}).out.str() == "52x20x8");

    CHECK_INVALID(op.infer(shapes{img(35, 35, 64), img(17, 17, 96)}, "Mixed/concat"), "layer 'Mixed/concat'",
                  "35x35x64", "17x17x96");
    CHECK_INVALID(ops::concat{3}.infer(shapes{img(2, 2, 2), img(2, 2, 2)}, "cat3"), "layer 'cat3'", "axis 3");
    CHECK_INVALID(op.infer(shapes{}, "cat0"), "layer 'cat0'", "at least one input");
}

TEST_CASE("elementwise add and multiply") {
    using e = ops::elementwise::operation;
    const ops::elementwise add{e::add}, mul{e::multiply};
    // A ResNet residual join on 14x14x256, batch 2: x = 100,352 elements.
    const auto a = applied_to(add, {img(14, 14, 256), img(14, 14, 256)});
    CHECK(a.out.str() == "14x14x256");
    // k = 2 inputs: k - 1 adds per element, reads k tensors, writes one.
    CHECK_WORK(work(add, phase::forward, a, 2), 100'352.0, 8.0 * 100'352, 4.0 * 100'352);
    CHECK_WORK(work(add, phase::backward_data, a, 2), 0, 0, 0);  // a sum's gradient passes through
    // A product's gradient: dy times the other input, one kernel for each of the 2 inputs (1 multiply per
    // element each); each reads dy and the other input and writes its gradient: 4 tensors read, 2 written.
    CHECK_WORK(work(mul, phase::backward_data, a, 2), 200'704.0, 16.0 * 100'352, 8.0 * 100'352);
    const auto kernels = mul.kernels(phase::backward_data, work_args{a.in, a.out, 2, 4, 0});
    CHECK(kernels[0].runs == 2);
    CHECK(kernels[1].runs + kernels[2].runs == 0);  // nothing broadcasts, nothing to sum
    // Three inputs: 2 adds per element.
    CHECK(work(add, phase::forward, applied_to(add, {img(14, 14, 256), img(14, 14, 256), img(14, 14, 256)}), 2).flops ==
          200'704.0);
    // A product of three: three kernels, each dy times the two others (2 multiplies per element), reading 3
    // tensors and writing 1.
    const auto three = applied_to(mul, {img(14, 14, 256), img(14, 14, 256), img(14, 14, 256)});
    CHECK_WORK(work(mul, phase::backward_data, three, 2), 6.0 * 100'352, 36.0 * 100'352, 12.0 * 100'352);
    // Two of them and a 1x1x256 gate (g = 512 elements at batch 2): the two full inputs' kernels read dy, the
    // other full input and the gate (2x + g) and write x; the gate's reads dy and both full inputs (3x) and
    // writes x, which the last kernel sums to g (x adds). 2 x 2x + 2x + x = 7x FLOPs.
    const auto gated = applied_to(mul, {img(14, 14, 256), img(14, 14, 256), img(1, 1, 256)});
    CHECK_WORK(work(mul, phase::backward_data, gated, 2), 7.0 * 100'352, 4.0 * (8 * 100'352 + 2 * 512),
               4.0 * (3 * 100'352 + 512));

    CHECK_INVALID(add.infer(shapes{img(8, 8, 16), img(8, 8, 32)}, "res_add"), "layer 'res_add'", "8x8x16", "8x8x32");
    CHECK_INVALID(add.infer(shapes{img(8, 8, 16)}, "res_one"), "layer 'res_one'", "at least two inputs, got 1");
}

TEST_CASE("pad: a copy into a larger tensor, its gradient sliced back out") {
    // DLBS's ResNet-18 pads each 3x3's input by 1 (tf.pad): 56x56x64 -> 58x58x64.
    ops::pad op;
    op.before = {1, 1, 0};
    op.after = {1, 1, 0};
    const auto a = applied_to(op, {img(56, 56, 64)});
    CHECK(a.out.str() == "58x58x64");
    CHECK(a.params == 0);
    // batch 2: x = 56*56*64*2 = 401,408 input elements, y = 58*58*64*2 = 430,592 padded ones, 4 bytes each.
    CHECK_WORK(work(op, phase::forward, a, 2), 0, 4.0 * 401'408, 4.0 * 430'592);
    CHECK_WORK(work(op, phase::backward_data, a, 2), 0, 4.0 * 401'408, 4.0 * 401'408);
    CHECK_WORK(work(op, phase::backward_weights, a, 2), 0, 0, 0);
    // Uneven pads and channels (a ResNet's option-A shortcut pads channels): 7x7x16 -> (7+0+1)x(7+2+0)x(16+8+8).
    ops::pad uneven;
    uneven.before = {0, 2, 8};
    uneven.after = {1, 0, 8};
    CHECK(applied_to(uneven, {img(7, 7, 16)}).out.str() == "8x9x32");
    ops::pad features;  // a flat input's one axis
    features.before = {3, 0, 0};
    CHECK(applied_to(features, {vec(10)}).out.str() == "13");

    CHECK_INVALID(uneven.infer(shapes{vec(10)}, "pad_flat"), "layer 'pad_flat'", "axis 1", "rank-1", "10");
    ops::pad negative;
    negative.after = {-1, 0, 0};
    CHECK_INVALID(negative.infer(shapes{img(4, 4, 4)}, "pad_neg"), "layer 'pad_neg'", "-1", "non-negative");
    CHECK_INVALID(op.infer(shapes{img(4, 4, 4), img(4, 4, 4)}, "pad_two"), "layer 'pad_two'", "expects 1 input, got 2");
}

TEST_CASE("reshape and flatten: a view, no cost") {
    const shapes in{img(6, 6, 256)};  // 9,216 elements
    CHECK(applied_to(ops::reshape::flatten(), in).out.str() == "9216");
    CHECK(applied_to(ops::reshape{{16, 16, 36}}, in).out.str() == "16x16x36");  // 16*16*36 = 9,216
    CHECK(applied_to(ops::reshape{{0, 36}}, in).out.str() == "256x36");         // the rest: 9,216 / 36 = 256
    const auto a = applied_to(ops::reshape::flatten(), in);
    CHECK(a.params == 0);
    CHECK_WORK(work(ops::reshape::flatten(), phase::forward, a, 8), 0, 0, 0);

    // 10*10 = 100 != 9,216; and 9,216 = 7 * 1,316 + 4 has no integer rest.
    CHECK_INVALID((ops::reshape{{10, 10}}.infer(in, "rs")), "layer 'rs'", "6x6x256", "9216 elements", "10x10");
    CHECK_INVALID((ops::reshape{{0, 7}}.infer(in, "rs7")), "layer 'rs7'", "6x6x256");
    CHECK_INVALID((ops::reshape{{0, 0}}.infer(in, "rs00")), "layer 'rs00'", "at most one 0");
    CHECK_INVALID((ops::reshape{{1, 1, 1, 9216}}.infer(in, "rs4")), "layer 'rs4'", "1 to 3 dimensions");
}

TEST_CASE("elementwise multiply broadcasts a 1x1xC gate over HxWxC (squeeze-and-excitation)") {
    using e = ops::elementwise::operation;
    const ops::elementwise mul{e::multiply}, add{e::add};
    // SE-ResNeXt's last stage: 7x7x2048 scaled by a 1x1x2048 gate, batch 2:
    // x = 7*7*2048*2 = 200,704 output elements, the gate 2048*2 = 4,096.
    const auto a = applied_to(mul, {img(7, 7, 2048), img(1, 1, 2048)});
    CHECK(a.out.str() == "7x7x2048");
    CHECK(applied_to(mul, {img(1, 1, 2048), img(7, 7, 2048)}).out.str() == "7x7x2048");  // either order
    // Forward: one multiply per output element; reads both inputs (200,704 + 4,096), writes the output.
    CHECK_WORK(work(mul, phase::forward, a, 2), 200'704.0, 4.0 * 204'800, 4.0 * 200'704);
    // Backward, three kernels: dy * gate for the big input (reads 200,704 + 4,096, writes 200,704), dy * x
    // for the gate at full size (reads 2 x 200,704, writes 200,704), and that product summed over the 7x7
    // positions (reads 200,704, writes the gate's 4,096); a multiply or an add per output element in each.
    CHECK_WORK(work(mul, phase::backward_data, a, 2), 3.0 * 200'704, 4.0 * (4 * 200'704 + 4'096),
               4.0 * (2 * 200'704 + 4'096));
    const auto kernels = mul.kernels(phase::backward_data, work_args{a.in, a.out, 2, 4, 0});
    CHECK(kernels[0].runs + kernels[1].runs + kernels[2].runs == 3);
    CHECK_WORK(work(mul, phase::backward_weights, a, 2), 0, 0, 0);
    // Equal shapes: both inputs read in full going forward.
    const auto same = applied_to(mul, {img(7, 7, 2048), img(7, 7, 2048)});
    CHECK_WORK(work(mul, phase::forward, same, 2), 200'704.0, 8.0 * 200'704, 4.0 * 200'704);

    // Only a product broadcasts, and only 1x1xC with the same C.
    CHECK_INVALID(add.infer(shapes{img(7, 7, 2048), img(1, 1, 2048)}, "se_add"), "layer 'se_add'", "1x1x2048",
                  "7x7x2048", "differ in shape");
    CHECK_INVALID(mul.infer(shapes{img(7, 7, 2048), img(1, 1, 1024)}, "se_c"), "layer 'se_c'", "1x1x1024", "7x7x2048",
                  "do not broadcast");
    CHECK_INVALID(mul.infer(shapes{img(7, 7, 2048), img(7, 1, 2048)}, "se_w"), "layer 'se_w'", "7x1x2048",
                  "do not broadcast");
}

TEST_CASE("dense per position: one matmul over every token, weights shared; tied weights are another layer's") {
    ops::dense d;
    d.outputs = 4;
    d.per_position = true;
    const auto a = applied_to(d, {img(10, 1, 8)});  // 10 tokens of 8 features
    CHECK(a.out == img(10, 1, 4));
    CHECK(a.params == 8 * 4 + 4);
    // Batch 2: X is 20 rows x 8 (160 elements), Y 20 x 4 (80), W 36 with the bias; 2 x 20 x 8 x 4 = 1280 FLOPs.
    const auto f = work(d, phase::forward, a, 2);
    CHECK(f.flops == 1280 + 80);
    CHECK(f.bytes_read == 4 * (160 + 36));
    CHECK(f.bytes_written == 4 * 80);
    CHECK(work(d, phase::backward_data, a, 2).bytes_read == 4 * (80 + 36));
    CHECK(work(d, phase::backward_weights, a, 2).bytes_written == 4 * 36);
    // Tied: no parameters of its own, but it reads the 8 x 4 weights all the same.
    d.bias = false;
    d.tied = true;
    const auto t = applied_to(d, {img(10, 1, 8)});
    CHECK(t.params == 0);
    CHECK(work(d, phase::forward, t, 2).bytes_read == 4 * (160 + 32));
    // Without per_position it flattens, as before: 80 inputs x 4 outputs.
    ops::dense flat;
    flat.outputs = 4;
    const auto fl = applied_to(flat, {img(10, 1, 8)});
    CHECK(fl.out == vec(4));
    CHECK(fl.params == 80 * 4 + 4);
}

TEST_CASE("layer_norm: a scale and a shift per feature, each pass one read of its tensors") {
    const auto a = applied_to(ops::layer_norm{}, {img(10, 1, 8)});
    CHECK(a.out == img(10, 1, 8));
    CHECK(a.params == 16);
    // Batch 2: 160 elements; 8 FLOPs each forward (Welford's 4, normalize, scale and shift 4).
    const auto f = work(ops::layer_norm{}, phase::forward, a, 2);
    CHECK(f.flops == 8 * 160);
    CHECK(f.bytes_read == 4 * 160);
    CHECK(f.bytes_written == 4 * 160);
    CHECK(work(ops::layer_norm{}, phase::backward_data, a, 2).bytes_read == 2 * 4 * 160);  // x and dy
    CHECK(work(ops::layer_norm{}, phase::backward_weights, a, 2).bytes_written == 4 * 16);
}

TEST_CASE("embedding: token and position tables, a gather forward and no data gradient") {
    ops::embedding e;
    e.vocabulary = 100;
    e.features = 8;
    e.positions = 16;
    const auto a = applied_to(e, {img(10, 1, 1)});
    CHECK(a.out == img(10, 1, 8));
    CHECK(a.params == (100 + 16) * 8);
    // Batch 2: 160 output elements; reads a token row and a position row per element and 20 int64 ids.
    const auto f = work(e, phase::forward, a, 2);
    CHECK(f.flops == 160);
    CHECK(f.bytes_read == 4 * 320 + 8 * 20);
    CHECK(f.bytes_written == 4 * 160);
    CHECK(work(e, phase::backward_data, a, 2).bytes_read == 0);
    CHECK(work(e, phase::backward_weights, a, 2).bytes_written == 4 * 928);
    CHECK(message_of<invalid_model>([&] { (void)e.infer(shapes{img(10, 1, 3)}, "embed"); }) ==
          "layer 'embed': expects a sequence of token ids, tokens x 1 x 1, got 10x1x3");
    e.positions = 8;
    CHECK(message_of<invalid_model>([&] { (void)e.infer(shapes{img(10, 1, 1)}, "embed"); }) ==
          "layer 'embed': 10 tokens, but position embeddings for 8");
}

TEST_CASE("attention: two batched GEMMs per head, the softmax and dropout over every score") {
    ops::attention at;
    at.heads = 2;
    const auto a = applied_to(at, {img(4, 1, 18)});  // 4 tokens of Q, K, V of 6 features: 2 heads of 3
    CHECK(a.out == img(4, 1, 6));
    CHECK(a.params == 0);
    // Batch 2, fp16: g = 2 x 2 = 4 GEMMs of 4 x 4 x 3 each way, 2 x 4 x 4 x 4 x 3 = 384 FLOPs; 4 x 16 = 64
    // scores; 2 x 4 x 6 = 48 elements of Q, K, V or the context.
    const auto f = work(at, phase::forward, a, 2, 2);
    CHECK(f.flops == 384 + 7 * 64 + 64 + 384);              // Q K^T, softmax, dropout, P V
    CHECK(f.bytes_read == 2 * (4 * 24 + 64 + 64 + 4 * 28 + 48));  // Q and K; scores; probabilities; P and V; context
    CHECK(f.bytes_written == 2 * (64 + 64 + 64 + 48 + 48) + 64);  // ... and the dropout's mask, a byte a score
    CHECK(work(at, phase::backward_data, a, 2, 2).flops == 4 * 384 + 64 + 4 * 64);  // dP, dV, dQ, dK; dropout; softmax
    CHECK(work(at, phase::backward_weights, a, 2, 2).flops == 0);
    const auto k = at.kernels(phase::forward, work_args{a.in, a.out, 2, 2, 0});
    CHECK((k[0].matmul && k[0].groups == 4 && k[0].m == 4 && k[0].n == 4 && k[0].k == 3));  // Q K^T: [4 x 3][3 x 4]
    at.dropout = false;
    CHECK(work(at, phase::forward, a, 2, 2).flops == 384 + 7 * 64 + 384);
    CHECK(message_of<invalid_model>([&] { (void)at.infer(shapes{img(4, 1, 20)}, "attn"); }) ==
          "layer 'attn': 20 input features do not split into queries, keys and values of 2 heads (expected a multiple "
          "of 3 x heads)");
}
