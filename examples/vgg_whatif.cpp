// What if VGG-16 trained on a newer GPU, in lower precision, or with a bigger batch?
#include "whatif.hpp"

int main() {
    const auto net = steptime::zoo::vgg16();
    whatif::devices_side_by_side(net, {"k40", "titan-x-pascal", "v100-sxm2-16gb", "a100-sxm4-80gb", "h100-sxm5-80gb"}, 64);
    whatif::batch_sweep(net, "a100-sxm4-80gb");
    whatif::heaviest_layers(net, "a100-sxm4-80gb", 64, 5);

    std::cout << "\n== precision on a100-sxm4-80gb, batch 64 (tensor cores for tf32/fp16/bf16)\n";
    for (auto p : {steptime::element_type::fp32, steptime::element_type::tf32, steptime::element_type::fp16,
                   steptime::element_type::bf16}) {
        const auto e = steptime::estimate(net, steptime::devices::get("a100-sxm4-80gb"), steptime::cost::paleo{},
                                          {.batch = 64, .precision = p});
        std::cout << steptime::detail::pad_right(std::string(steptime::to_string(p)), 8)
                  << steptime::detail::pad_left(steptime::detail::ms(e.total), 10) << " ms\n";
    }
}
