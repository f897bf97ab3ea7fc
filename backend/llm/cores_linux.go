package llm

import (
	"os"
	"path/filepath"
	"strings"
)

// physicalCores counts the cores (not hardware threads) from sysfs, 0 when it cannot:
// llama.cpp's threads gain nothing from a core's second hardware thread, and Ollama's own
// default is this count.
func physicalCores() int {
	dirs, _ := filepath.Glob("/sys/devices/system/cpu/cpu[0-9]*/topology")
	cores := map[string]bool{}
	for _, d := range dirs {
		pkg, err1 := os.ReadFile(filepath.Join(d, "physical_package_id"))
		core, err2 := os.ReadFile(filepath.Join(d, "core_id"))
		if err1 != nil || err2 != nil {
			return 0
		}
		cores[strings.TrimSpace(string(pkg))+"/"+strings.TrimSpace(string(core))] = true
	}
	return len(cores)
}
