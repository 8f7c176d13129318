# `steptime scale`
