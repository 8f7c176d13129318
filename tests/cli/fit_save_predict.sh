#!/bin/sh
# steptime fit ppp --save, then steptime predict --calibration with the saved profile: predict's forward time
# of alexnet at batch 128 must be the fit's own prediction of the row CNN-001 (the same model, cost::calibrated).
# Usage: fit_save_predict.sh STEPTIME MEASUREMENTS.csv PROFILE.json
set -eu
"$1" fit ppp --train "$2" --save "$3" > /dev/null
forward=$("$1" predict -m alexnet -d titan-x-maxwell -b 128 --calibration "$3" --format json |
          sed -n 's/^  "forward_s": \([0-9.e+-]*\),$/\1/p')
fitted=$("$1" fit ppp --train "$2" --format json | grep -A12 '"id": "CNN-001"' |
         sed -n 's/^ *"predicted_s": \([0-9.e+-]*\),$/\1/p')
echo "predict: $forward s, fit: $fitted s"
awk -v a="$forward" -v b="$fitted" 'BEGIN { d = (a - b) / b; exit !(a > 0 && d < 1e-12 && d > -1e-12) }'
