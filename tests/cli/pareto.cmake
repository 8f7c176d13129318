# `steptime pareto`
