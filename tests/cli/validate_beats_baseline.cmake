# Runs `steptime validate` with the default model and with paleo-compat at PALEO's TensorFlow preset
# (ppp_comp 0.62, ppp_comm 0.72; paleo-model.md section 9), and fails unless the default's MAPE is lower in
# every category the baseline predicts. Arguments: CLI, DATA, CASES.
execute_process(COMMAND ${CLI} validate --data ${DATA} --cases ${CASES} --format json
                OUTPUT_VARIABLE ours RESULT_VARIABLE rc1)
execute_process(COMMAND ${CLI} validate --data ${DATA} --cases ${CASES} --format json --cost-model paleo-compat
                        --ppp-compute 0.62 --ppp-comm 0.72 --skip-unsupported
                OUTPUT_VARIABLE theirs RESULT_VARIABLE rc2)
if(NOT rc1 EQUAL 0 OR NOT rc2 EQUAL 0)
  message(FATAL_ERROR "steptime validate failed: ${rc1} ${rc2}")
endif()
string(JSON n LENGTH "${ours}" categories)
math(EXPR last "${n} - 1")
foreach(i RANGE ${last})
  string(JSON name MEMBER "${ours}" categories ${i})
  string(JSON mine GET "${ours}" categories ${name} mape)
  string(JSON rows GET "${theirs}" categories ${name} rows)
  if(rows EQUAL 0)
    message(FATAL_ERROR "${name}: paleo-compat predicts no row")
  endif()
  string(JSON base GET "${theirs}" categories ${name} mape)
  message(STATUS "${name}: kernel ${mine}, paleo-compat ${base}")
  if(NOT mine LESS base)
    message(FATAL_ERROR "${name}: kernel's MAPE ${mine} is not below paleo-compat's ${base}")
  endif()
endforeach()
message(STATUS "${n} categories, kernel better on all")
