# `steptime pareto`: time and cost to train over a grid, and the Pareto-optimal configurations.

# The table: 2 devices x 2 worker counts, each row marked `*` (Pareto-optimal) or not.
cli_rows(pareto_table 4
         "^pareto +model +device +network +comm +workers +batch +step ms +steps +hours +GPU-hours +\\$/GPU-hour +cost \\$ +memory GiB +fits$"
         "^(\\* +| +)alexnet +(k80|v100-sxm2-16gb) +ethernet-100g +ring +(1|8) +[0-9]+ +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +yes$"
         pareto -m alexnet -d k80,v100-sxm2-16gb -w 1,8 --dataset-size 1281167 --epochs 90)

# PALEO's step, priced by hand: scaling.csv's row "...,K80,ethernet20,20,256,strong,8,256,32,...,TreeAllReduce,
# 482.9175551999999,538.5299051033869" is 0.5385299051033869 s a step; 1,281,167 / 256 = 5004.6 -> 5005 steps in
# one epoch, x 0.5385299051033869 s = 2695.342175042452 s; x 8 GPUs / 3600 = 5.98964927787 GPU-hours; x $0.90
# (PALEO's K80 price, built in) = $5.39068435008. A single configuration is its own Pareto front.
cli_rows(pareto_paleo_priced 1 "^model,device,network,comm,workers,batch,batch_per_worker,step_ms,steps,time_s,gpu_hours,usd_per_gpu_hour,cost_usd,memory_bytes,fits,pareto$"
         "^alex_v2,paleo:K80,paleo:ethernet20,tree,8,256,32,538\\.52990510338[0-9]*,5005,2695\\.3421750424[0-9]*,5\\.9896492778[0-9]*,0\\.9,5\\.3906843500[0-9]*,[0-9.e+]+,\\?,true$"
         pareto -m ${nets}/alex_v2.json -d paleo:K80 --cost-model paleo-compat --ppp-compute 0.62 --scaling strong
         -b 256 -w 8 --comm tree --dataset-size 1281167 --epochs 1 --format csv)

# The example price file replaces the built-in V100 price ($3.06 -> $0.92) and prices a GPU the built-in table
# lacks (h200-sxm-141gb, $3.50): 2 models x 2 devices x 2 worker counts.
cli_rows(pareto_price_file 8 "^model,device,"
         "^(alexnet,v100-sxm2-16gb,.*,0\\.92|alexnet,h200-sxm-141gb,.*,3\\.5|vgg16,v100-sxm2-16gb,.*,0\\.92|vgg16,h200-sxm-141gb,.*,3\\.5),[0-9.e+-]+,[0-9.e+-]+,yes,(true|false)$"
         pareto -m alexnet,vgg16 -d v100-sxm2-16gb,h200-sxm-141gb -w 1,8 --dataset-size 1281167 --epochs 90
         --prices ${examples_data}/prices.csv --format csv)

# A free GPU: every V100 configuration costs $0, so the fastest of them (8 workers: 8x the samples a step for
# little more time) dominates every other configuration, K80s included (slower per step on the same batch).
set(free_prices ${CMAKE_CURRENT_BINARY_DIR}/pareto_free_v100.csv)
file(WRITE ${free_prices} "device,usd_per_gpu_hour\nv100-sxm2-16gb,0\n")
# All 6 rows match: that one `true`, the 5 others `false`.
cli_rows(pareto_free_device 6 "^model,device"
         "^alexnet,(v100-sxm2-16gb,ethernet-100g,ring,8,1024,128,.*,0,0,[0-9.e+]+,yes,true|.*,false)$"
         pareto -m alexnet -d k80,v100-sxm2-16gb -w 1,2,8 --dataset-size 1281167 --epochs 90 --prices ${free_prices}
         --format csv)

# Only a configuration that fits its GPUs' memory can be Pareto-optimal. ResNet-50 in FP32 holds 85.9 MB of
# activations a sample (graph/activations.hpp's tally) and 0.2 GB of weights and gradients (25.6 M parameters x 8
# bytes with SGD): at batch 256 20.7 GiB, beyond a T4's 16, where batch 128's 10.4 GiB fit. Batch 256 is the cheaper (fewer steps, each less than twice as
# long) and would be the front's cheapest; it is left off, and batch 128 alone is on the front.
cli_rows(pareto_memory 2 "^model,device"
         "^resnet50,t4,ethernet-100g,ring,1,(128,.*,yes,true|256,.*,no,false)$"
         pareto -m resnet50 -d t4 -b 128,256 -w 1 --dataset-size 1281167 --epochs 90 --format csv)

add_test(NAME cli_pareto_json
         COMMAND ${cli} pareto -m alexnet -d v100-sxm2-16gb -w 1,8 --dataset-size 50000 --epochs 2.5
                 --prices ${examples_data}/prices.csv --format json)
set_tests_properties(cli_pareto_json PROPERTIES PASS_REGULAR_EXPRESSION
  "\"dataset_size\": 50000,.*\"epochs\": 2\\.5,.*\"prices\": \\[[^]]*\"source\": \"illustrative: [^]]*\\],.*\"configurations\": \\[.*\"usd_per_gpu_hour\": 0\\.92,[^}]*\"memory\": {[^}]*\"fits\": true[^}]*},[^}]*\"pareto\": true")

# --plot: cost against time with the front, when gnuplot is there (as sweep's --plot test).
if(STEPTIME_GNUPLOT)
  set(pareto_svg ${CMAKE_CURRENT_BINARY_DIR}/cli_pareto_plot.svg)
  set(check_svg ${CMAKE_CURRENT_BINARY_DIR}/check_pareto_svg.cmake)
  file(WRITE ${check_svg} [==[
file(REMOVE "${SVG}")
string(REPLACE "|" ";" cmd "${CMD}")
execute_process(COMMAND ${cmd} RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "exit status ${status}")
endif()
file(READ "${SVG}" svg)
foreach(expected "<svg" "time to train \\(hours\\)" "cost \\(USD\\)" "Pareto-optimal" "k80" "v100-sxm2-16gb")
  if(NOT svg MATCHES "${expected}")
    message(FATAL_ERROR "${SVG} lacks '${expected}'")
  endif()
endforeach()
]==])
  add_test(NAME cli_pareto_plot
           COMMAND ${CMAKE_COMMAND} "-DCMD=${cli}|pareto|-m|alexnet|-d|k80,v100-sxm2-16gb|-w|1,8,64|--dataset-size|1281167|--epochs|90|--plot|${pareto_svg}"
                   -DSVG=${pareto_svg} -P ${check_svg})
endif()

# Bad input: one line naming what was wrong.
cli_fails(pareto_no_price "${e}no price per GPU-hour for device 'h200-sxm-141gb': give one in a --prices CSV file"
          pareto -m alexnet -d k80,h200-sxm-141gb --dataset-size 1000 --epochs 1)
cli_fails(pareto_no_dataset "${e}--dataset-size is required" pareto -m alexnet -d k80 --epochs 1)
cli_fails(pareto_dataset_zero "${e}--dataset-size '0': out of range" pareto -m alexnet -d k80 --dataset-size 0 --epochs 1)
cli_fails(pareto_epochs_zero "${e}--epochs 0: expected a finite positive number" pareto -m alexnet -d k80 --dataset-size 1000 --epochs 0)
cli_fails(pareto_price_file_missing "${e}.*no/such/prices.csv" pareto -m alexnet -d k80 --dataset-size 1000 --epochs 1
          --prices ${CMAKE_CURRENT_BINARY_DIR}/no/such/prices.csv)
cli_fails(pareto_model_twice "${e}--model: two models named 'alexnet'" pareto -m alexnet,alexnet -d k80 --dataset-size 1000 --epochs 1)
cli_fails(pareto_format "${e}--format: xml not in" pareto -m alexnet -d k80 --dataset-size 1000 --epochs 1 --format xml)

# Specs hold commas of their own: an item "key=value" continues the spec before it, so this is 2 models
# (a GEMM and ResNet-18 at 160x160 with 10 classes) x 1 device x 2 worker counts.
cli_rows(pareto_specs 4 "^model,device,"
         "^\"(gemm:m=1760,n=128,k=1760|resnet18:resolution=160,classes=10)\",v100-sxm2-16gb,ethernet-100g,ring,(1|8),"
         pareto -m gemm:m=1760,n=128,k=1760,resnet18:resolution=160,classes=10 -d v100-sxm2-16gb -w 1,8
         --dataset-size 50000 --epochs 1 --format csv)
