# The file system's floor under a dataset append (issue 43): bench/dataset_floor, run beside
# `convert --dataset` and `convert -o` by scripts/bench.sh (section `dataset`).
# SPDX-License-Identifier: MIT
add_executable(dataset_floor ${CMAKE_CURRENT_SOURCE_DIR}/dataset_floor.c)
