// What if AlexNet trained on another GPU, or with another batch size? Which layers dominate?
#include "whatif.hpp"

int main() {
    const auto net = steptime::zoo::alexnet();
    whatif::devices_side_by_side(net, {"k80", "titan-x-maxwell", "p100-sxm2-16gb", "v100-sxm2-16gb",
                                       "a100-sxm4-80gb", "h100-sxm5-80gb"}, 128);
    whatif::batch_sweep(net, "v100-sxm2-16gb");
    whatif::heaviest_layers(net, "v100-sxm2-16gb", 128, 5);

    // PALEO's own view of the same network on its TITAN X, for comparison with the paper.
    const auto paleo = steptime::estimate(net, steptime::devices::get("paleo:TITAN_X"), steptime::cost::paleo_compat{},
                                          {.batch = 128});
    std::cout << "\nPALEO-compatible step on paleo:TITAN_X at batch 128: " << steptime::detail::ms(paleo.total) << " ms\n";
}
