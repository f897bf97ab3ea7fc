//go:build !linux && !darwin

package llm

// physicalCores is 0 where Carrel does not count cores: the server chooses the threads.
func physicalCores() int { return 0 }
