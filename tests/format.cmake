# Tests of the wire encoding (src/format): the section encoder against hand-built bytes.
# SPDX-License-Identifier: MIT
bb_test(format_sections INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/format/sections_test.c)
# The hole-leaving fd sink (src/format/sink_sparse.c), and a mostly empty recorder dumped sparse.
bb_test(format_sink_sparse INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/format/sink_sparse_test.c)
# The rseq margin (src/format/rseq_margin.c) shared by dumps and `backbeat recover`.
bb_test(format_rseq_margin INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/format/rseq_margin_test.c)
# The walk that finds where a ring is cut (src/format/ring_cut.c), against its definition.
bb_test(format_ring_cut INTERNAL SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/format/ring_cut_test.c)
