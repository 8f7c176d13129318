"""Writes DLBS's ResNet-18, -34, -50 and -101 (tf_cnn_benchmarks/convnet_builder.py, residual_unit, and
models/resnet_model.py, DLBSResNet, at DLBS commit cec704b/5ef7bbf) as PALEO JSON networks: the stride on the
second 3x3 of a basic block and on the 3x3 of a bottleneck, a 1x1 projection with batch norm on the first unit of
every stage (the first stage's too), the stem padded by 3 and max-pooled without padding (55x55), 1001 classes;
each 3x3's input and the stem's copied into a padded tensor (tf.pad: a Pad layer) for a VALID convolution.
Writes into the working directory."""
import argparse
import json

# Units per stage, and whether they are bottlenecks (DLBS: 50 layers or more).
RESNETS = {"resnet18": ([2, 2, 2, 2], False), "resnet34": ([3, 4, 6, 3], False), "resnet50": ([3, 4, 6, 3], True),
           "resnet101": ([3, 4, 23, 3], True)}
torchvision = False
layers = {}


def add(name, spec, *parents):
    layers[name] = dict(spec, parents=list(parents))
    return name


def conv_bn(name, parent, filters, kernel, stride, padding, relu=True):
    if isinstance(padding, int):  # DLBS's cnn.pad(p) before a VALID convolution
        parent = add(name + "/pad", {"type": "Pad", "paddings": [[0, 0], [padding, padding], [padding, padding], [0, 0]]},
                     parent)
        padding = "VALID"
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
        branch = conv_bn(name + "/conv1", x, filters, 3, 1, 1)
        branch = conv_bn(name + "/conv2", branch, filters, 3, stride, 1, relu=False)
    return join(name, x, branch, filters, stride, project)


def bottleneck_unit(name, x, filters, stride, project):  # DLBS's and torchvision's: the stride on the 3x3
    branch = conv_bn(name + "/conv1", x, filters // 4, 1, 1, "VALID")
    branch = conv_bn(name + "/conv2", branch, filters // 4, 3, stride, "SAME" if torchvision else 1)
    branch = conv_bn(name + "/conv3", branch, filters, 1, 1, "VALID", relu=False)
    return join(name, x, branch, filters, stride, project)


def join(name, x, branch, filters, stride, project):
    shortcut = conv_bn(name + "/downsample", x, filters, 1, stride, "VALID", relu=False) if project else x
    add(name + "/add", {"type": "Elementwise"}, branch, shortcut)
    return add(name + "/relu", {"type": "ReLU"}, name + "/add")


def resnet(name, units, bottleneck):
    layers.clear()
    x = add("data", {"type": "Input", "tensor": [64, 224, 224, 3]})
    x = conv_bn("conv1", x, 64, 7, 2, "SAME" if torchvision else 3)
    x = add("maxpool", {"type": "Pooling", "ksize": [1, 3, 3, 1], "strides": [1, 2, 2, 1],
                        "padding": "SAME" if torchvision else "VALID"}, x)
    for stage, count in enumerate(units):
        for unit in range(count):
            stride = 2 if stage > 0 and unit == 0 else 1
            if bottleneck:
                x = bottleneck_unit(f"layer{stage + 1}.{unit}", x, 256 << stage, stride, unit == 0)
            else:
                x = basic_unit(f"layer{stage + 1}.{unit}", x, 64 << stage, stride, unit == 0)
    x = add("avgpool", {"type": "AvgPool", "ksize": [1, 7, 7, 1], "strides": [1, 1, 1, 1], "padding": "VALID"}, x)
    x = add("fc", {"type": "InnerProduct", "num_outputs": 1000 if torchvision else 1001}, x)
    add("loss", {"type": "Softmax"}, x)
    return {"name": name, "layers": dict(layers)}


def main():
    global torchvision
    parser = argparse.ArgumentParser(description="Writes DLBS's ResNet-18, -34, -50 and -101 as PALEO JSON networks.")
    parser.add_argument("--torchvision", action="store_true",
                        help="the zoo's (torchvision's) layout instead, to check the writer against the zoo")
    torchvision = parser.parse_args().torchvision
    for name, (units, bottleneck) in RESNETS.items():
        path = f"{name}-torchvision.json" if torchvision else f"dlbs-{name}.json"
        with open(path, "w") as f:
            json.dump(resnet(path[:-5], units, bottleneck), f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
