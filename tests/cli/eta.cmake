# `steptime eta`: the example logs of examples/data (made by a script with known truths, README "Remaining time").
# train-progress.log: 0.3125 s per iteration, two 40 s checkpoints, 25 s of start-up; at 2400 of 5000 iterations.
add_test(NAME cli_eta_simple COMMAND ${cli} eta --log ${examples_data}/train-progress.log)
set_tests_properties(cli_eta_simple PROPERTIES PASS_REGULAR_EXPRESSION
  "simple format, 25 timed samples.*progress +2400 of 5000 iterations \\(48\\.0%\\).*2 outliers dropped.*1 warm-up interval\\(s\\) dropped.*per iteration +31[0-9]\\.[0-9]+ ms.*remaining +8[0-9][0-9]\\.[0-9] s \\(0:1[34]:[0-9][0-9]\\).*95% band.*with pauses")
# lightning-progress.log: epochs of 1000 iterations at 0.3 s, at epoch 3, iteration 450; the log does not say how
# many epochs, --epochs does.
add_test(NAME cli_eta_lightning COMMAND ${cli} eta --log ${examples_data}/lightning-progress.log --epochs 10)
set_tests_properties(cli_eta_lightning PROPERTIES PASS_REGULAR_EXPRESSION
  "tqdm format.*progress +3450 of 10000 iterations.*per iteration +(29[0-9]|30[0-9])\\.[0-9]+ ms")
add_test(NAME cli_eta_lightning_total COMMAND ${cli} eta --log ${examples_data}/lightning-progress.log --total 4000 --format json)
set_tests_properties(cli_eta_lightning_total PROPERTIES PASS_REGULAR_EXPRESSION "\"done\": 3450,[^}]*\"total\": 4000,")
# keras-progress.log: 10 epochs of 500 steps at about 0.122 s; 5 epochs ended, epoch 6 at step 200.
add_test(NAME cli_eta_keras_json COMMAND ${cli} eta --log ${examples_data}/keras-progress.log --format json)
set_tests_properties(cli_eta_keras_json PROPERTIES PASS_REGULAR_EXPRESSION
  "\"log_format\": \"keras\",.*\"done\": 2700,.*\"total\": 5000,.*\"warmup_dropped\": 1,.*\"per_iteration_s\": 0\\.12[0-9]*,")
# Retargeting: the ratio is the two predicted steps' (their values change with the cost model, so only the shape).
add_test(NAME cli_eta_retarget
         COMMAND ${cli} eta --log ${examples_data}/train-progress.log --from v100-sxm2-16gb --to a100-sxm4-40gb
                 --model vgg16 --batch 64 --format json)
set_tests_properties(cli_eta_retarget PROPERTIES PASS_REGULAR_EXPRESSION
  "\"retargeted\": [{][^}]*\"from\": \"v100-sxm2-16gb\",[^}]*\"to\": \"a100-sxm4-40gb\",[^}]*\"model\": \"vgg16\",[^}]*\"batch\": 64,[^}]*\"ratio\": 0\\.[0-9]+,[^}]*\"remaining_s\": [0-9.]+")
add_test(NAME cli_eta_retarget_table
         COMMAND ${cli} eta --log ${examples_data}/keras-progress.log --from v100-sxm2-16gb --to h100-sxm5-80gb -m alexnet)
set_tests_properties(cli_eta_retarget_table PROPERTIES PASS_REGULAR_EXPRESSION
  "on h100-sxm5-80gb: x 0\\.[0-9]+, the ratio of alexnet's predicted steps.*remaining .*95% band")

cli_fails(eta_no_total "lightning-progress.log: the log does not say how many iterations the job has. give --total"
          eta --log ${examples_data}/lightning-progress.log)
cli_fails(eta_not_a_log "CMakeLists.txt:1: expected '<time> <iteration>\\[/<total>\\]'" eta --log ${PROJECT_SOURCE_DIR}/CMakeLists.txt)
cli_fails(eta_missing_file "no-such.log: cannot read the file" eta --log ${examples_data}/no-such.log)
cli_fails(eta_to_alone "--to needs --from \\(the job's device\\) and --model" eta --log ${examples_data}/train-progress.log
          --to a100-sxm4-40gb)
cli_fails(eta_total_and_epochs "give --total or --epochs, not both" eta --log ${examples_data}/keras-progress.log
          --total 10 --epochs 2)
cli_fails(eta_past_total "at iteration 2400, past its total of 100" eta --log ${examples_data}/train-progress.log --total 100)
cli_fails(eta_window "--window" eta --log ${examples_data}/train-progress.log --window 1)
cli_fails(eta_forced_format "no timed progress in the keras format" eta --log ${examples_data}/train-progress.log
          --log-format keras)
cli_fails(eta_unknown_device "unknown device 'z80'" eta --log ${examples_data}/train-progress.log --from z80
          --to a100-sxm4-40gb -m alexnet)
