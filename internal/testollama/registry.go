package testollama

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// ServeRegistry serves the model name (as Ollama names it: "tiny",
// "tiny:latest" or "ns/model:tag") from the models directory of the server
// that created it, speaking enough of the OCI distribution API for another
// Ollama to pull it over plain HTTP:
//
//	GET|HEAD /v2/NS/MODEL/manifests/TAG
//	GET|HEAD /v2/NS/MODEL/blobs/sha256:DIGEST
//
// Name the model to pull with [PullName] and pull it with insecure: true.
// A blob GET redirects to the same server under the name "localhost", as the
// Ollama registry redirects to its CDN: v0.6.5 takes the redirect's Location
// as the URL to download from and fails without one. Other models, tags and
// blobs are 404. close stops the server.
func ServeRegistry(modelsDir, name string) (url string, close func()) {
	ns, model, tag := splitName(name)
	manifestPath := filepath.Join(modelsDir, "manifests", "registry.ollama.ai", ns, model, tag)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("testollama: registry listen: %v", err))
	}
	port := l.Addr().(*net.TCPAddr).Port

	mux := http.NewServeMux()
	prefix := "/v2/" + ns + "/" + model
	mux.HandleFunc(prefix+"/manifests/{tag}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("tag") != tag {
			registryError(w, http.StatusNotFound, "MANIFEST_UNKNOWN", "manifest unknown")
			return
		}
		data, err := os.ReadFile(manifestPath)
		if err != nil {
			registryError(w, http.StatusNotFound, "MANIFEST_UNKNOWN", err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/vnd.docker.distribution.manifest.v2+json")
		http.ServeContent(w, r, "", time.Time{}, strings.NewReader(string(data)))
	})
	mux.HandleFunc(prefix+"/blobs/{digest}", func(w http.ResponseWriter, r *http.Request) {
		digest := r.PathValue("digest")
		if !inManifest(manifestPath, digest) {
			registryError(w, http.StatusNotFound, "BLOB_UNKNOWN", "blob unknown")
			return
		}
		if r.Method == http.MethodGet {
			target := fmt.Sprintf("http://localhost:%d/direct/%s", port, digest)
			http.Redirect(w, r, target, http.StatusTemporaryRedirect)
			return
		}
		serveBlob(w, r, modelsDir, digest)
	})
	mux.HandleFunc("/direct/{digest}", func(w http.ResponseWriter, r *http.Request) {
		digest := r.PathValue("digest")
		if !inManifest(manifestPath, digest) {
			http.NotFound(w, r)
			return
		}
		serveBlob(w, r, modelsDir, digest)
	})
	mux.HandleFunc("/v2/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v2/" {
			w.WriteHeader(http.StatusOK)
			return
		}
		registryError(w, http.StatusNotFound, "NAME_UNKNOWN", "repository name not known to registry")
	})

	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l)
	return "http://" + l.Addr().String(), func() { srv.Close() }
}

// PullName is the name under which an Ollama server pulls model name from
// the registry at registryURL (as returned by [ServeRegistry]), such as
// "127.0.0.1:PORT/library/tiny:latest".
func PullName(registryURL, name string) string {
	ns, model, tag := splitName(name)
	host := strings.TrimPrefix(strings.TrimPrefix(registryURL, "http://"), "https://")
	return host + "/" + ns + "/" + model + ":" + tag
}

func splitName(name string) (ns, model, tag string) {
	model, tag, ok := strings.Cut(name, ":")
	if !ok {
		tag = "latest"
	}
	ns, m, ok := strings.Cut(model, "/")
	if !ok {
		return "library", model, tag
	}
	return ns, m, tag
}

var digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// inManifest reports whether digest is the config or a layer of the manifest.
func inManifest(manifestPath, digest string) bool {
	if !digestRE.MatchString(digest) {
		return false
	}
	data, err := os.ReadFile(manifestPath)
	if err != nil {
		return false
	}
	var m struct {
		Config struct{ Digest string }
		Layers []struct{ Digest string }
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return false
	}
	if m.Config.Digest == digest {
		return true
	}
	for _, l := range m.Layers {
		if l.Digest == digest {
			return true
		}
	}
	return false
}

func serveBlob(w http.ResponseWriter, r *http.Request, modelsDir, digest string) {
	f, err := os.Open(filepath.Join(modelsDir, "blobs", strings.Replace(digest, ":", "-", 1)))
	if errors.Is(err, os.ErrNotExist) {
		registryError(w, http.StatusNotFound, "BLOB_UNKNOWN", "blob unknown")
		return
	} else if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Docker-Content-Digest", digest)
	http.ServeContent(w, r, "", time.Time{}, f)
}

func registryError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{
		"errors": []map[string]string{{"code": code, "message": msg}},
	})
}
