# `steptime fit`: the regression models and the PPP calibration on the example files (examples/data/).
set(validation ${PROJECT_SOURCE_DIR}/validation/measured)

# Per-layer lines: the example files are seed 000's published M6000 lines with 3% noise, so held-out layer
# times come within about that noise (mean |N(0, 3%)| = 2.4%): test MAPE under 5%.
add_test(NAME cli_fit_per_layer
         COMMAND ${cli} fit per-layer --train ${examples_data}/per-layer-train.csv --test ${examples_data}/per-layer-test.csv)
set_tests_properties(cli_fit_per_layer PROPERTIES PASS_REGULAR_EXPRESSION
  "conv_fc +forward +[0-9.]+ +[0-9.]+ +6 +[0-9.]+%.*test: 30 layer times, MAPE [0-4]\\.[0-9]%")

# End-to-end: 6 small runs (b <= 32, i <= 200) of T = 1e-3 i b + 1e-2 i + 1e-2 b + 3 s with 1.5% noise; seed 002's
# finding is a test MAPE under 5% on the larger runs (b 48-64, i 500-2000).
add_test(NAME cli_fit_end_to_end
         COMMAND ${cli} fit end-to-end --train ${examples_data}/runs-train.csv --test ${examples_data}/runs-test.csv)
set_tests_properties(cli_fit_end_to_end PROPERTIES PASS_REGULAR_EXPRESSION "fitted to 6 runs.*test:  MAPE [0-4]\\.[0-9]%")
add_test(NAME cli_fit_end_to_end_json COMMAND ${cli} fit end-to-end --train ${examples_data}/runs-train.csv --format json)
set_tests_properties(cli_fit_end_to_end_json PROPERTIES PASS_REGULAR_EXPRESSION
  "\"a_s\": [0-9.e-]+,\n  \"b1_s\": [0-9.e-]+,\n  \"c_s\": [0-9.e-]+,\n  \"d_s\": [0-9.e-]+,\n  \"train\": [{]")

# PPP: fitted to TensorFlow's four Titan X rows of convnet-benchmarks, checked on Torch's four (issue 5's goal: 8%).
add_test(NAME cli_fit_ppp
         COMMAND ${cli} fit ppp --train ${examples_data}/ppp-titan-x-tensorflow.csv --test ${examples_data}/ppp-titan-x-torch.csv)
set_tests_properties(cli_fit_ppp PROPERTIES PASS_REGULAR_EXPRESSION
  "compute efficiency e_c +[0-9.]+ +of 6\\.60 TFLOP/s FP32.*CNN-006 +overfeat +backward +128 +189\\.00 .*test: MAPE [0-7]\\.[0-9]%")
# The published rows through their cases: one profile per device.
add_test(NAME cli_fit_ppp_published
         COMMAND ${cli} fit ppp --train ${validation}/calibration.csv --cases ${validation}/cases.csv --format json)
set_tests_properties(cli_fit_ppp_published PROPERTIES PASS_REGULAR_EXPRESSION
  "\"device\": \"titan-x-maxwell\".*\"id\": \"CNN-008\".*\"device\": \"p100-sxm2-16gb\".*\"id\": \"TF-017\"")
# --save, then predict with the profile: the same model as the fit (cost::calibrated), so the same time.
add_test(NAME cli_fit_ppp_save_predict
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/fit_save_predict.sh ${cli} ${examples_data}/ppp-titan-x-tensorflow.csv
                 ${CMAKE_CURRENT_BINARY_DIR}/titan-x-profile.json)

set(e "^steptime: error: ")
cli_fails(fit_no_train "${e}--train is required" fit ppp)
cli_fails(fit_published_without_cases "${e}--train [^\n]*calibration.csv: published measurements \\(a 'metric' column\\) need a --cases file"
          fit ppp --train ${validation}/calibration.csv)
cli_fails(fit_save_two_devices "${e}--save: [^\n]*calibration.csv measures [0-9]+ devices. a profile is of one: choose it with --device"
          fit ppp --train ${validation}/calibration.csv --cases ${validation}/cases.csv --save ${CMAKE_CURRENT_BINARY_DIR}/x.json)
cli_fails(fit_bad_csv "${e}[^\n]*runs-test.csv: the header has no column 'category'"
          fit per-layer --train ${examples_data}/runs-test.csv)
set(loss_layers ${CMAKE_CURRENT_BINARY_DIR}/loss-layers.csv)
file(WRITE ${loss_layers} "category,phase,complexity,time_s\nloss,forward,1e6,1e-4\n")
cli_fails(fit_test_of_unfitted_category "${e}[^\n]*loss-layers.csv: a loss forward layer, but --train has no such layers"
          fit per-layer --train ${examples_data}/per-layer-train.csv --test ${loss_layers})
cli_fails(fit_unknown_device "${e}--device k80: no measurement in" fit ppp --train ${examples_data}/ppp-titan-x-torch.csv --device k80)
cli_fails(calibration_other_device "${e}calibration '[^']*' was fitted on titan-x-maxwell, not on k80"
          predict -m alexnet -d k80 --calibration ${examples_data}/titan-x-profile.json)
cli_fails(calibration_with_ppp "${e}--calibration sets paleo's efficiencies"
          predict -m alexnet -d titan-x-maxwell --ppp-compute 0.5 --calibration ${examples_data}/titan-x-profile.json)
