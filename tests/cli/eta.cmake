# `steptime eta`
