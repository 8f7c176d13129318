// steptime/zoo/zoo.hpp: the catalog of built-in networks (name, one-line description, builder).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "steptime/zoo/alexnet.hpp"
#include "steptime/zoo/builder.hpp"
#include "steptime/zoo/densenet.hpp"
#include "steptime/zoo/inception.hpp"
#include "steptime/zoo/nin.hpp"
#include "steptime/zoo/resnet.hpp"
#include "steptime/zoo/vgg.hpp"

namespace steptime::zoo {

template <class Net = network>
struct entry {
    std::string_view name;
    std::string_view description;
    Net (*build)(const options&);
};

template <class Net = network>
const std::vector<entry<Net>>& catalog() {
    static const std::vector<entry<Net>> all{
        {"alexnet", "AlexNet, One Weird Trick single tower (PALEO's alex_v2), 224x224", alexnet<Net>},
        {"alexnet-caffe", "AlexNet, BVLC Caffe (grouped conv2/4/5, LRN), 227x227", alexnet_caffe<Net>},
        {"overfeat-fast", "OverFeat, fast model, 231x231", overfeat<Net>},
        {"nin", "Network in Network, ImageNet model (PALEO's nin), 224x224", nin<Net>},
        {"vgg11", "VGG-11, configuration A (VGG-A), 224x224", vgg11<Net>},
        {"vgg16", "VGG-16, configuration D, 224x224", vgg16<Net>},
        {"vgg19", "VGG-19, configuration E, 224x224", vgg19<Net>},
        {"googlenet", "GoogLeNet (Inception v1), no auxiliary classifiers, 224x224", googlenet<Net>},
        {"inception-v3", "Inception v3 (torchvision), no auxiliary classifier, 299x299", inception_v3<Net>},
        {"resnet18", "ResNet-18, 224x224", resnet18<Net>},
        {"resnet34", "ResNet-34, 224x224", resnet34<Net>},
        {"resnet50", "ResNet-50 v1.5 (stride on the 3x3), 224x224", resnet50<Net>},
        {"resnet101", "ResNet-101 v1.5, 224x224", resnet101<Net>},
        {"resnet152", "ResNet-152 v1.5, 224x224", resnet152<Net>},
        {"resnext101-32x4d", "ResNeXt-101 32x4d, 224x224", resnext101_32x4d<Net>},
        {"se-resnext101-32x4d", "SE-ResNeXt-101 32x4d (squeeze-excitation, reduction 16), 224x224",
         se_resnext101_32x4d<Net>},
        {"densenet121", "DenseNet-121 (growth 32, compression 0.5), 224x224", densenet121<Net>},
        {"densenet161", "DenseNet-161 (growth 48, compression 0.5), 224x224", densenet161<Net>},
        {"densenet169", "DenseNet-169 (growth 32, compression 0.5), 224x224", densenet169<Net>},
        {"densenet201", "DenseNet-201 (growth 32, compression 0.5), 224x224", densenet201<Net>},
    };
    return all;
}

template <class Net = network>
const entry<Net>* find(std::string_view name) {
    for (const auto& e : catalog<Net>())
        if (e.name == name) return &e;
    return nullptr;
}

}  // namespace steptime::zoo
