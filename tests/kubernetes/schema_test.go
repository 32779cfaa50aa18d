package kubernetes

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/yannh/kubeconform/pkg/validator"
	"sigs.k8s.io/yaml"
)

// kubernetesVersion is the release whose API the manifests are checked
// against: the module k8s.io/kubernetes at this version carries its
// OpenAPI document (api/openapi-spec/swagger.json).
const kubernetesVersion = "1.33.4"

// manifestsDir holds the manifests under test.
var manifestsDir = filepath.Join("..", "..", "deploy", "kubernetes")

// TestManifestsMatchKubernetesSchemas validates every manifest of
// deploy/kubernetes with kubeconform, strictly (a field Kubernetes does
// not know is an error), against schemas made here from Kubernetes'
// OpenAPI document: kubeconform downloads its schemas from GitHub
// normally, which CI cannot reach, while the Go module proxy serves the
// document. Manifests with a misspelt field and a wrong type must fail,
// which shows the schemas are strict and real.
func TestManifestsMatchKubernetesSchemas(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(manifestsDir, "*.yaml"))
	if err != nil || len(files) < 5 {
		t.Fatalf("deploy/kubernetes: %d manifests (%v), want the Deployment, Service, ConfigMap, Secret and HPA", len(files), err)
	}
	dir := t.TempDir()
	writeSchemas(t, dir, files)
	v, err := validator.New([]string{filepath.Join(dir, "{{ .ResourceKind }}{{ .KindSuffix }}.json")},
		validator.Opts{Strict: true, KubernetesVersion: kubernetesVersion})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, f := range files {
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range v.Validate(f, r) {
			sig, _ := res.Resource.Signature()
			switch res.Status {
			case validator.Valid:
				kinds[sig.Kind] = true
			case validator.Empty:
			default:
				t.Errorf("%s: %s %s: %v %v", f, sig.Kind, sig.Name, res.Err, res.ValidationErrors)
			}
		}
	}
	for _, k := range []string{"Deployment", "Service", "ConfigMap", "Secret", "HorizontalPodAutoscaler"} {
		if !kinds[k] {
			t.Errorf("deploy/kubernetes has no valid %s", k)
		}
	}

	deployment, err := os.ReadFile(filepath.Join(manifestsDir, "deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	hpa, err := os.ReadFile(filepath.Join(manifestsDir, "hpa.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct{ name, manifest string }{
		{"a misspelt field", strings.Replace(string(deployment), "readinessProbe:", "readinessProbes:", 1)},
		{"a field of the wrong type", strings.Replace(string(hpa), "averageUtilization: 70", `averageUtilization: "70"`, 1)},
		{"a member of the wrong place", strings.Replace(string(deployment), "terminationGracePeriodSeconds:", "terminationGracePeriod:", 1)},
	} {
		results := v.Validate(bad.name+".yaml", io.NopCloser(strings.NewReader(bad.manifest)))
		if len(results) != 1 || results[0].Status != validator.Invalid {
			t.Errorf("%s: kubeconform did not refuse it (%v)", bad.name, results)
		}
	}
}

// writeSchemas writes into dir the schemas of the kinds files declare, as
// kubeconform's default registry names and shapes them
// ("deployment-apps-v1.json", standalone, strict): each kind's definition
// of Kubernetes' OpenAPI document with every reference inlined, objects
// closed to undeclared members, and int-or-string as a string or an
// integer.
func writeSchemas(t *testing.T, dir string, files []string) {
	t.Helper()
	doc := openAPIDocument(t)
	var spec struct {
		Definitions map[string]map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(doc, &spec); err != nil {
		t.Fatalf("swagger.json: %v", err)
	}
	byGVK := map[string]string{} // "apps/v1 Deployment" → definition name
	for name, def := range spec.Definitions {
		gvks, _ := def["x-kubernetes-group-version-kind"].([]any)
		for _, g := range gvks {
			m := g.(map[string]any)
			apiVersion := m["version"].(string)
			if group := m["group"].(string); group != "" {
				apiVersion = group + "/" + apiVersion
			}
			byGVK[apiVersion+" "+m["kind"].(string)] = name
		}
	}
	defs := map[string]any{}
	for k, v := range spec.Definitions {
		defs[k] = v
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range bytes.Split(data, []byte("\n---")) {
			var head struct{ APIVersion, Kind string }
			if err := yaml.Unmarshal(doc, &head); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if head.Kind == "" {
				continue
			}
			name, ok := byGVK[head.APIVersion+" "+head.Kind]
			if !ok {
				t.Fatalf("%s: %s %s is no kind of Kubernetes %s", f, head.APIVersion, head.Kind, kubernetesVersion)
			}
			schema, err := json.Marshal(inline(defs, defs[name], map[string]bool{name: true}))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, schemaFile(head.APIVersion, head.Kind)), schema, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// schemaFile is the file kubeconform looks for the schema of a kind in:
// "deployment-apps-v1.json", "service-v1.json".
func schemaFile(apiVersion, kind string) string {
	suffix := apiVersion
	if group, version, ok := strings.Cut(apiVersion, "/"); ok {
		group, _, _ = strings.Cut(group, ".")
		suffix = group + "-" + version
	}
	return strings.ToLower(kind + "-" + suffix + ".json")
}

// inline returns v with its references to definitions replaced by the
// definitions (a reference back to one being inlined, as in the recursive
// schemas of custom resources, is left open), every object schema closed
// to members it does not declare, and int-or-string values as a string or
// an integer.
func inline(defs map[string]any, v any, open map[string]bool) any {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/definitions/")
			if open[name] {
				return map[string]any{}
			}
			open[name] = true
			defer delete(open, name)
			return inline(defs, defs[name], open)
		}
		if x["format"] == "int-or-string" {
			return map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}
		}
		out := make(map[string]any, len(x)+1)
		for k, e := range x {
			if k == "properties" {
				props := map[string]any{}
				for p, s := range e.(map[string]any) {
					props[p] = inline(defs, s, open)
				}
				out[k] = props
				continue
			}
			out[k] = inline(defs, e, open)
		}
		if _, ok := out["properties"]; ok {
			if _, set := out["additionalProperties"]; !set {
				out["additionalProperties"] = false
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = inline(defs, e, open)
		}
		return out
	}
	return v
}

// openAPIDocument returns Kubernetes' OpenAPI document from the module
// k8s.io/kubernetes, through the Go module cache and proxy.
func openAPIDocument(t *testing.T) []byte {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", "k8s.io/kubernetes@v"+kubernetesVersion)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	var mod struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &mod); err != nil || jerr != nil || mod.Dir == "" {
		t.Fatalf("go mod download k8s.io/kubernetes@v%s: %v %s %s", kubernetesVersion, err, mod.Error, out)
	}
	doc, err := os.ReadFile(filepath.Join(mod.Dir, "api", "openapi-spec", "swagger.json"))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
