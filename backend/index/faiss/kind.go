package faiss

import "fmt"

// Kind is the structure under the id map. Its values are declared by the build in use:
// FAISS's own (faiss.go) or the pure-Go index's (purego.go).
type Kind int

func (k Kind) String() string {
	switch k {
	case Flat:
		return "flat"
	case HNSW:
		return "hnsw"
	case IVF:
		return "ivf"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}
