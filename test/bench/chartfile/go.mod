// chart.json's shape, shared by the benchmark (test/bench, in the apiserver's module), which
// writes it, and bench-chart (test/bench/chart), which draws it. A module of its own with no
// requirements, so that each program imports one declaration without taking in the other's
// module graph.
module github.com/netfork/netfork/test/bench/chartfile

go 1.26.0
