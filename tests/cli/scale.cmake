# `steptime scale`: the example measurements of examples/data/ scaled to other GPUs, and bad input.
set(scale_csv ${examples_data}/kernels-v100.csv)
set(scale_trace ${examples_data}/trace-v100.json)

# The table: every operation of the example CSV, then the total.
add_test(NAME cli_scale_csv_table COMMAND ${cli} scale --measured ${scale_csv} --from v100-sxm2-16gb --to t4)
set_tests_properties(cli_scale_csv_table PROPERTIES PASS_REGULAR_EXPRESSION
  "7 kernels in 5 operations, v100-sxm2-16gb -> t4, mode wave.*aten::cudnn_convolution +2 +915\\.0 +[0-9.]+.*aten::addmm +2 +36\\.0.*total +7 +1661\\.7 +[0-9.]+ +[0-9.]+")
# The trace: three operators (the memcpy is no kernel), per kernel with gamma and waves. The ReLU kernel has
# 50176 blocks of 128 threads (4 warps) and 20 registers: 16 blocks/SM on both GPUs (64 warps / 4), so
# 1280 a wave on V100's 80 SMs (40 waves) and 1728 on A100's 108 (30 waves).
add_test(NAME cli_scale_trace_kernels
         COMMAND ${cli} scale --measured ${scale_trace} --from v100-sxm2-16gb --to a100-sxm4-40gb --kernels)
set_tests_properties(cli_scale_trace_kernels PROPERTIES PASS_REGULAR_EXPRESSION
  "4 kernels in 3 operations.*aten::relu_ +1 +262\\.7.*40->30.*volta_sgemm_128x64_nn.*1->1 small")
# The identity: the same GPU on both sides gives back the measured times.
add_test(NAME cli_scale_identity
         COMMAND ${cli} scale --measured ${scale_csv} --from t4 --to t4 --mode habitat-code --format csv)
set_tests_properties(cli_scale_identity PROPERTIES PASS_REGULAR_EXPRESSION
  "op,kernels,measured_us,overhead_us,predicted_us,ratio\naten::cudnn_convolution,2,[0-9.]+,7\\.3[0-9]*,[0-9.]+,1\n.*aten::addmm,2,36,2\\.3[0-9]*,36,1\n")
# Mode resimplified (gamma 1): a large memory-bound kernel scales by 900/320 GB/s = 2.8125.
add_test(NAME cli_scale_resimplified_json
         COMMAND ${cli} scale --measured ${scale_csv} --from v100-sxm2-16gb --to t4 --mode resimplified --format json)
set_tests_properties(cli_scale_resimplified_json PROPERTIES PASS_REGULAR_EXPRESSION
  "\"mode\": \"resimplified\".*\"name\": \"aten::relu_\",[^]]*\"ratio\": 2\\.81(25|24999)")
# A device file with a compute capability (data/devices/example-gpu.json, an A100 SXM4 40 GB).
add_test(NAME cli_scale_device_file
         COMMAND ${cli} scale --measured ${scale_csv} --from v100-sxm2-16gb --to ${PROJECT_SOURCE_DIR}/data/devices/example-gpu.json
                 --format csv --kernels)
set_tests_properties(cli_scale_device_file PROPERTIES PASS_REGULAR_EXPRESSION
  "op,kernel,measured_us,predicted_us,ratio,gamma,waves_from,waves_to,small\n.*\"void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, true, 1>\\(...\\)\",268\\.1")

set(e "^steptime: error: ")
cli_fails(scale_missing_measured "${e}--measured is required" scale --from t4 --to t4)
cli_fails(scale_no_file "${e}.*nothing.csv: cannot read the file" scale --measured nothing.csv --from t4 --to a10)
cli_fails(scale_unknown_device "${e}unknown device 'v101'" scale --measured ${scale_csv} --from v101 --to t4)
cli_fails(scale_bad_mode "${e}--mode: eq2 not in" scale --measured ${scale_csv} --from t4 --to a10 --mode eq2)
cli_fails(scale_bad_floor "${e}--launch-floor '2 days': unknown unit 'days'"
          scale --measured ${scale_csv} --from t4 --to a10 --launch-floor "2 days")
# PALEO's devices have no SMs or compute capability: the example's launch geometry needs them.
cli_fails(scale_no_compute_capability "${e}device 'paleo:K80': field 'sm_count' is missing"
          scale --measured ${scale_csv} --from paleo:K80 --to t4)
# Bad input files: the CSV's and the trace's errors name the file and where in it.
cli_fails(scale_malformed_trace "${e}.*tests/data/bad/malformed.json: malformed JSON"
          scale --measured ${PROJECT_SOURCE_DIR}/tests/data/bad/malformed.json --from t4 --to a10)
cli_fails(scale_not_a_trace "${e}.*data/devices/example-gpu.json: no 'traceEvents' member"
          scale --measured ${PROJECT_SOURCE_DIR}/data/devices/example-gpu.json --from t4 --to a10)
set(weather_csv ${CMAKE_CURRENT_BINARY_DIR}/weather.csv)
file(WRITE ${weather_csv} "# not kernels\ndate,temperature\n2024-01-01,5\n")
cli_fails(scale_not_a_kernel_csv "${e}.*weather.csv:2: unknown column 'date' in the header \\(expected name, duration_us"
          scale --measured ${weather_csv} --from t4 --to a10)

# Mode anchored-roofline: a 100 us kernel of 1e12 FLOPs and 1e9 bytes is compute-bound on both GPUs, so it
# scales by the FP32 peaks' ratio, v100-sxm2-16gb 15.7 TFLOP/s over a100-sxm4-40gb 19.5: 100 x 15.7/19.5 = 80.5 us.
set(anchored_csv ${CMAKE_CURRENT_BINARY_DIR}/anchored-kernels.csv)
file(WRITE ${anchored_csv} "name,duration_us,flops,bytes\ngemm,100,1e12,1e9\n")
add_test(NAME cli_scale_anchored_roofline
         COMMAND ${cli} scale --measured ${anchored_csv} --from v100-sxm2-16gb --to a100-sxm4-40gb --mode anchored-roofline)
set_tests_properties(cli_scale_anchored_roofline PROPERTIES PASS_REGULAR_EXPRESSION "gemm +1 +100\\.0 +80\\.5 +0\\.805")
cli_fails(scale_anchored_without_counts "${e}kernel 'cask_cudnn::computeOffsetsKernel': mode anchored-roofline needs the kernel's FLOPs and bytes"
          scale --measured ${examples_data}/kernels-v100.csv --from v100-sxm2-16gb --to t4 --mode anchored-roofline)
