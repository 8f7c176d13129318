# `steptime fit`
