# Models from specs (zoo/spec.hpp) and `predict --phase`: single operations timed as kernel benchmarks time them.

# DeepBench's GEMM M=1760, N=128, K=1760: 2*1760*128*1760 = 792,985,600 FLOPs; FP32 bytes of A, B and C:
# 4 * (1760*1760 + 1760*128 + 1760*128) = 14,192,640.
add_test(NAME cli_spec_gemm_forward
         COMMAND ${cli} predict --model gemm:m=1760,n=128,k=1760 --device v100-sxm2-16gb --phase forward --cost-model paleo)
set_tests_properties(cli_spec_gemm_forward PROPERTIES PASS_REGULAR_EXPRESSION
  "^gemm:m=1760,n=128,k=1760,ta=0,tb=0 on v100-sxm2-16gb, batch 128, fp32, paleo cost model, forward \\(no weight update\\).*\ngemm +dense +792985600 +14192640 +[0-9]+\\.[0-9]+\n.*\ntotal +792985600 +14192640 +[0-9]+\\.[0-9]+ +\\([0-9.]+ TFLOP/s\\)\n$")
# Both gradients: twice the forward FLOPs.
add_test(NAME cli_spec_gemm_backward_csv
         COMMAND ${cli} predict -m gemm:m=1760,n=128,k=1760,ta=1 -d v100-sxm2-16gb --phase backward --cost-model paleo
                 --format csv)
set_tests_properties(cli_spec_gemm_backward_csv PROPERTIES PASS_REGULAR_EXPRESSION
  "^model,device,batch,cost_model,phase,layer,op,flops,bytes,time_s\n.*\"gemm:m=1760,n=128,k=1760,ta=1,tb=0\",v100-sxm2-16gb,128,paleo,backward,\\(total\\),,1585971200,")
# ResNet's first convolution, 224x224x3 to 112x112x64 (7x7, stride 2, pad 3), batch 16, all three passes:
# 3 * 2*16*112*112*64*3*7*7 = 11,329,339,392 FLOPs.
add_test(NAME cli_spec_conv_training_json
         COMMAND ${cli} predict -m conv2d:n=16,h=224,w=224,c=3,k=64,r=7,s=7,stride=2,pad=3 -d a100-sxm4-40gb
                 --phase forward+backward-data+backward-weights --cost-model paleo --format json)
set_tests_properties(cli_spec_conv_training_json PROPERTIES PASS_REGULAR_EXPRESSION
  "\"batch\": 16,.*\"phase\": \"training\",.*\"flops\": 11329339392(\\.0)?,.*\"name\": \"conv\",[^}]*\"op\": \"conv2d\",[^}]*\"flops\": 11329339392")
# A zoo network with options: VGG-16 at 160x160 with 10 classes has 83,969,866 parameters (fc6 is 5x5x512x4096).
add_test(NAME cli_spec_zoo_options COMMAND ${cli} predict -m vgg16:resolution=160,classes=10 -d k40)
set_tests_properties(cli_spec_zoo_options PROPERTIES PASS_REGULAR_EXPRESSION "parameters +83969866 ")
# sweep takes a spec too.
add_test(NAME cli_spec_sweep COMMAND ${cli} sweep -m gemm:m=1024,n=64,k=512 -d k40 -w 1,2 --format csv)
set_tests_properties(cli_spec_sweep PROPERTIES PASS_REGULAR_EXPRESSION "\n\"gemm:m=1024,n=64,k=512\",k40,")
# Without --phase, predict's output is the step's as always.
add_test(NAME cli_spec_predict_step COMMAND ${cli} predict -m gemm:m=64,n=64,k=64 -d k40)
set_tests_properties(cli_spec_predict_step PROPERTIES PASS_REGULAR_EXPRESSION "update +[0-9.]+ ms.*step +[0-9.]+ ms")

cli_fails(spec_missing_key "${e}model spec 'gemm:m=1760,n=128': missing key 'k' \\(gemm needs m, n, k\\)\n$"
          predict -m gemm:m=1760,n=128 -d k40 --phase forward)
cli_fails(spec_unknown_key "${e}model spec 'conv2d:n=1,h=8,w=8,c=1,k=1,r=1,s=1,dilation=2': unknown key 'dilation' \\(conv2d accepts n, h, w, c, k, r, s, stride, pad, groups, stride_h, stride_w, pad_h, pad_w\\)\n$"
          predict -m conv2d:n=1,h=8,w=8,c=1,k=1,r=1,s=1,dilation=2 -d k40)
cli_fails(spec_bad_value "${e}model spec 'gemm:m=0,n=1,k=1': key 'm' is 0, expected a positive integer\n$"
          predict -m gemm:m=0,n=1,k=1 -d k40)
cli_fails(spec_unknown_op "${e}model spec 'matmul:m=1': unknown model 'matmul' \\(known: gemm, conv2d, lstm, gru, rnn, gpt, alexnet, "
          predict -m matmul:m=1 -d k40)
cli_fails(spec_window "${e}model spec 'conv2d:n=1,h=2,w=2,c=1,k=1,r=3,s=3': layer 'conv': window of 3 does not fit an input of 2"
          predict -m conv2d:n=1,h=2,w=2,c=1,k=1,r=3,s=3 -d k40)
cli_fails(unknown_model_lists_specs "${e}unknown model 'resnet9000': not in the zoo \\([^)]*\\), not a spec \\(gemm:m=,n=,k= or conv2d:"
          predict -m resnet9000 -d k40)
cli_fails(phase_unknown "${e}--phase 'backwards': expected forward, backward-data, backward-weights, backward"
          predict -m gemm:m=8,n=8,k=8 -d k40 --phase backwards)
cli_fails(phase_workers "${e}--phase times the passes on one device: leave out --workers, --parallelism and the pipeline's options\n$"
          predict -m gemm:m=8,n=8,k=8 -d k40 --phase forward -w 2)
cli_fails(phase_pipeline "${e}--phase times the passes on one device: leave out --workers, --parallelism and the pipeline's options\n$"
          predict -m gemm:m=8,n=8,k=8 -d k40 --phase forward --micro-batches 4)
