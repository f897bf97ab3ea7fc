package testollama

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/carrel-app/carrel/backend/envconfig"
)

// buildTarget says how the test Ollama is compiled for this machine and names its cache.
type buildTarget struct {
	// Key is appended to the cache folder's name; empty for the plain build.
	Key string
	// CFlags go into CGO_CFLAGS and CGO_CXXFLAGS; empty for the plain build.
	CFlags string
	// CPU describes the processor the key was made from (written beside the binary).
	CPU string
}

// hostTarget returns the build for the CPU this process runs on. `go install` compiles
// ggml for baseline x86-64 (SSE2 only): MiniLM then embeds a batch of 32 passages in 15.4 s
// on one core, against 1.13 s with -march=native (13.6×; AVX2/AVX-512 in ggml's kernels
// and llamafile's sgemm). A binary so built dies with an illegal instruction on a CPU
// without those extensions, so its cache is keyed by a hash of the CPU's model and feature
// flags: each call works out the key afresh, and a machine with another CPU (a copied home
// folder, a CI runner) builds its own instead of running a binary that cannot run there.
// Only linux/amd64 is tuned (/proc/cpuinfo names the features); elsewhere, and with
// CARREL_OLLAMA_TUNE=off (a binary to copy to another machine), the plain build.
func hostTarget() buildTarget {
	if envconfig.OllamaTuneOff() || runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return buildTarget{}
	}
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return buildTarget{}
	}
	cpu := cpuIdentity(string(info))
	if cpu == "" {
		return buildTarget{}
	}
	sum := sha256.Sum256([]byte(cpu))
	return buildTarget{Key: "native-" + hex.EncodeToString(sum[:6]), CFlags: "-O3 -march=native", CPU: cpu}
}

// cpuIdentity returns the fields of the first processor in a /proc/cpuinfo text that decide
// what -march=native compiles for: vendor, family, model and the feature flags (sorted, so
// a kernel listing them in another order keys the same). Empty when there are no flags.
func cpuIdentity(cpuinfo string) string {
	fields := map[string]string{}
	for _, line := range strings.Split(cpuinfo, "\n") {
		if strings.TrimSpace(line) == "" && len(fields) > 0 {
			break // the end of the first processor
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		fields[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	flags := strings.Fields(fields["flags"])
	if len(flags) == 0 {
		return ""
	}
	slices.Sort(flags)
	return strings.Join([]string{fields["vendor_id"], fields["cpu family"], fields["model"], fields["model name"], strings.Join(flags, " ")}, "\n")
}
