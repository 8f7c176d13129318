"""Writes DLBS's ResNet-18 and ResNet-34 (tf_cnn_benchmarks/convnet_builder.py, residual_unit, at DLBS commit
cec704b/5ef7bbf) as PALEO JSON networks: the stride on the second 3x3 of a basic block, a 1x1 projection with batch
norm on the first unit of every stage (the first stage's too), the stem padded by 3 and max-pooled without
padding (55x55), 1001 classes. DLBS pads with tf.pad before each 3x3; here the convolutions pad themselves (SAME),
which gives the same shapes and multiply-adds but leaves out the copies. Writes into the working directory."""
import argparse
import json

torchvision = False
layers = {}


def add(name, spec, *parents):
    layers[name] = dict(spec, parents=list(parents))
    return name


def conv_bn(name, parent, filters, kernel, stride, padding, relu=True):
    x = add(name, {"type": "Convolution", "filter": [kernel, kernel, -1, filters], "strides": [1, stride, stride, 1],
                   "padding": padding, "bias": False}, parent)
    x = add(name + "/bn", {"type": "BatchNorm"}, x)
    return add(name + "/relu", {"type": "ReLU"}, x) if relu else x


def basic_unit(name, x, filters, stride, project):
    if torchvision:  # stride on the first 3x3, a projection only where the shape changes
        branch = conv_bn(name + "/conv1", x, filters, 3, stride, "SAME")
        branch = conv_bn(name + "/conv2", branch, filters, 3, 1, "SAME", relu=False)
        project = project and stride != 1
    else:
        branch = conv_bn(name + "/conv1", x, filters, 3, 1, "SAME")
        branch = conv_bn(name + "/conv2", branch, filters, 3, stride, "SAME", relu=False)
    shortcut = conv_bn(name + "/downsample", x, filters, 1, stride, "VALID", relu=False) if project else x
    add(name + "/add", {"type": "Elementwise"}, branch, shortcut)
    return add(name + "/relu", {"type": "ReLU"}, name + "/add")


def resnet(name, units):
    layers.clear()
    x = add("data", {"type": "Input", "tensor": [64, 224, 224, 3]})
    x = conv_bn("conv1", x, 64, 7, 2, "SAME")
    x = add("maxpool", {"type": "Pooling", "ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1],
                        "padding": "SAME" if torchvision else "VALID"}, x)
    for stage, count in enumerate(units):
        for unit in range(count):
            x = basic_unit(f"layer{stage + 1}.{unit}", x, 64 << stage, 2 if stage > 0 and unit == 0 else 1, unit == 0)
    x = add("avgpool", {"type": "AvgPool", "ksize": [1, 7, 7, 1], "strides": [1, 1, 1, 1], "padding": "VALID"}, x)
    x = add("fc", {"type": "InnerProduct", "num_outputs": 1000 if torchvision else 1001}, x)
    add("loss", {"type": "Softmax"}, x)
    return {"name": name, "layers": dict(layers)}


def main():
    global torchvision
    parser = argparse.ArgumentParser(description="Writes DLBS's ResNet-18 and -34 as PALEO JSON networks.")
    parser.add_argument("--torchvision", action="store_true",
                        help="the zoo's (torchvision's) layout instead, to check the writer against the zoo")
    torchvision = parser.parse_args().torchvision
    for name, units in (("resnet18", [2, 2, 2, 2]), ("resnet34", [3, 4, 6, 3])):
        path = f"{name}-torchvision.json" if torchvision else f"dlbs-{name}.json"
        with open(path, "w") as f:
            json.dump(resnet(path[:-5], units), f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
