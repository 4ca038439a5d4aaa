# Benchmarks: built by `make bench`, never run by `make check`.
