"""The soak test: the whole local stack under faults for a while (`make soak`; short in `make test`)."""
