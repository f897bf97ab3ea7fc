// Package release checks .github/workflows/release.yml, which only runs on GitHub: that it
// parses, and that what it calls exists here (tasks, scripts, jobs it needs) and the
// secrets it reads are the documented ones. It cannot run the macOS steps; see
// docs/release.md.
package release

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

type workflow struct {
	On   map[string]any `yaml:"on"`
	Jobs map[string]struct {
		RunsOn any    `yaml:"runs-on"`
		Needs  any    `yaml:"needs"`
		Steps  []step `yaml:"steps"`
		If     string `yaml:"if"`
	} `yaml:"jobs"`
}

type step struct {
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	Env  map[string]string `yaml:"env"`
	With map[string]any    `yaml:"with"`
}

func root(t *testing.T) string {
	t.Helper()
	dir, _ := os.Getwd()
	return filepath.Join(dir, "..", "..")
}

func read(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReleaseWorkflow(t *testing.T) {
	var wf workflow
	raw := read(t, ".github/workflows/release.yml")
	if err := yaml.Unmarshal(raw, &wf); err != nil {
		t.Fatalf("release.yml does not parse: %v", err)
	}
	var tf struct {
		Tasks map[string]any `yaml:"tasks"`
	}
	if err := yaml.Unmarshal(read(t, "Taskfile.yml"), &tf); err != nil {
		t.Fatalf("Taskfile.yml: %v", err)
	}
	for _, job := range []string{"linux", "windows", "windows-native", "macos", "macos-universal", "release"} {
		if _, ok := wf.Jobs[job]; !ok {
			t.Errorf("job %s is missing", job)
		}
	}
	if _, ok := wf.On["push"]; !ok {
		t.Error("the workflow does not run on tag pushes")
	}
	taskRe := regexp.MustCompile(`go tool task ([\w:-]+)`)
	scriptRe := regexp.MustCompile(`bash (scripts/[\w.-]+)`)
	var tasks []string
	for name, job := range wf.Jobs {
		var needs []string
		switch n := job.Needs.(type) {
		case string:
			needs = []string{n}
		case []any:
			for _, x := range n {
				needs = append(needs, x.(string))
			}
		}
		for _, n := range needs {
			if _, ok := wf.Jobs[n]; !ok {
				t.Errorf("job %s needs %s, which does not exist", name, n)
			}
		}
		for _, s := range job.Steps {
			if s.Uses == "" && s.Run == "" {
				t.Errorf("job %s: step %q neither uses nor runs anything", name, s.Name)
			}
			for _, m := range taskRe.FindAllStringSubmatch(s.Run, -1) {
				tasks = append(tasks, m[1])
				if _, ok := tf.Tasks[m[1]]; !ok {
					t.Errorf("job %s runs task %s, which Taskfile.yml does not have", name, m[1])
				}
			}
			for _, m := range scriptRe.FindAllStringSubmatch(s.Run, -1) {
				if _, err := os.Stat(filepath.Join(root(t), m[1])); err != nil {
					t.Errorf("job %s runs %s: %v", name, m[1], err)
				}
			}
		}
	}
	// The Linux and Windows jobs run the tasks that are tested on the development machine
	// (test:package builds the Linux packages, then installs and removes the .deb).
	for _, want := range []string{"test:package", "test:windows"} {
		if !slices.Contains(tasks, want) {
			t.Errorf("no job runs go tool task %s", want)
		}
	}
	// Secrets are read by the names docs/release.md tells the maintainer to set.
	docs := string(read(t, "docs/release.md"))
	secrets := regexp.MustCompile(`secrets\.(\w+)`).FindAllStringSubmatch(string(raw), -1)
	if len(secrets) == 0 {
		t.Fatal("the workflow reads no secrets; notarisation needs them")
	}
	for _, m := range secrets {
		if !strings.Contains(docs, m[1]) {
			t.Errorf("secret %s is not documented in docs/release.md", m[1])
		}
	}
	for _, want := range []string{"APPLE_ID", "APPLE_TEAM_ID", "APPLE_APP_PASSWORD"} {
		if !strings.Contains(string(raw), "secrets."+want) {
			t.Errorf("notarisation does not read secret %s", want)
		}
	}
}
