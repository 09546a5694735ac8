package deploy

import (
	"bufio"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestStaticBuildIsAStaticELFThatAnswers builds hookgate as the image does
// and checks that it needs no loader and no shared library (a distroless
// static or scratch base has neither), and that it runs.
func TestStaticBuildIsAStaticELFThatAnswers(t *testing.T) {
	bin := hookgateBinary(t)
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatalf("not an ELF file: %v", err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("has a program interpreter (PT_INTERP): it is dynamically linked")
		}
		if p.Type == elf.PT_DYNAMIC {
			t.Errorf("has a dynamic segment (PT_DYNAMIC)")
		}
	}
	for _, name := range []string{".interp", ".dynamic"} {
		if f.Section(name) != nil {
			t.Errorf("has a %s section", name)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("imports shared libraries: %v", libs)
	}
	if f.Section(".symtab") != nil {
		t.Errorf("has a symbol table: -ldflags -s was not applied")
	}

	out, err := exec.Command(bin, "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "hookgate serve --config FILE") {
		t.Errorf("hookgate --help: %v\n%s", err, out)
	}
	out, err = exec.Command(bin, "version").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "hookgate deploy-test" {
		t.Errorf("hookgate version = %q, %v; want the HOOKGATE_VERSION the build was given", out, err)
	}
	demo, err := os.ReadFile(filepath.Join(repoRoot, "configs", "demo.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	validateConfig(t, "configs/demo.yaml", string(demo), map[string]string{"HOOKGATE_DEMO_UPSTREAM": "http://127.0.0.1:1"})
}

// dockerfile is the repository's Dockerfile, one instruction a line
// (continuations joined), comments left out.
func dockerfile(t *testing.T) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	cur := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasSuffix(line, `\`) {
			cur += strings.TrimSuffix(line, `\`) + " "
			continue
		}
		lines = append(lines, cur+line)
		cur = ""
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestDockerfileBuildsWithTheTestedScript reads the Dockerfile (no engine
// runs here to build it): its only build is scripts/build-static.sh, the
// script TestStaticBuildIsAStaticELFThatAnswers runs; it builds with the
// Go of go.mod and runs the binary as distroless's nonroot user on a
// static base, with /data as a volume and the configuration in
// /etc/hookgate (and the default store's state folder on that volume).
func TestDockerfileBuildsWithTheTestedScript(t *testing.T) {
	lines := dockerfile(t)
	gomod, err := os.ReadFile(filepath.Join(repoRoot, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(gomod)
	if goLine == nil {
		t.Fatal("go.mod has no go line")
	}

	var froms, builds []string
	has := map[string]bool{}
	for _, l := range lines {
		instr, rest, _ := strings.Cut(l, " ")
		switch strings.ToUpper(instr) {
		case "FROM":
			froms = append(froms, rest)
		case "RUN":
			if strings.Contains(rest, "go build") {
				t.Errorf("the Dockerfile runs go build itself (%q): keep the build in scripts/build-static.sh, which the test runs", rest)
			}
			if strings.Contains(rest, "scripts/build-static.sh") {
				builds = append(builds, rest)
			}
		}
		has[l] = true
	}
	if want := "ARG GO_VERSION=" + string(goLine[1]); !has[want] {
		t.Errorf("the Dockerfile lacks %q (the go line of go.mod)", want)
	}
	if len(builds) != 1 || !strings.Contains(builds[0], "sh scripts/build-static.sh /out/hookgate") {
		t.Errorf("want one RUN of `sh scripts/build-static.sh /out/hookgate`, got %q", builds)
	}
	if len(froms) != 2 || !strings.HasPrefix(froms[0], "golang:${GO_VERSION}") ||
		froms[1] != "gcr.io/distroless/static-debian12:nonroot" {
		t.Errorf("want a golang:${GO_VERSION} build stage and a distroless static nonroot run stage, got %q", froms)
	}
	for _, want := range []string{
		"COPY --from=build /out/hookgate /usr/local/bin/hookgate",
		`VOLUME ["/data"]`,
		"USER 65532:65532",
		"ENV XDG_STATE_HOME=/data",
		`ENTRYPOINT ["/usr/local/bin/hookgate"]`,
		`CMD ["serve", "--config", "/etc/hookgate/hookgate.yaml"]`,
	} {
		if !has[want] {
			t.Errorf("the Dockerfile lacks %q", want)
		}
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "CMD ") {
		t.Errorf("the Dockerfile should end with its CMD, ends with %q", last)
	}
}

// TestDockerignoreKeepsWhatTheBuildNeeds checks that no package the binary
// is built from, nor the build's own files, is left out of the context.
func TestDockerignoreKeepsWhatTheBuildNeeds(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(repoRoot, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.Dir}}{{end}}", "./cmd/hookgate")
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	needed := []string{"go.mod", "go.sum", "scripts/build-static.sh", "configs/demo.yaml"}
	for _, dir := range strings.Fields(string(out)) {
		if rel, err := filepath.Rel(root, dir); err == nil && !strings.HasPrefix(rel, "..") {
			needed = append(needed, rel+"/x.go")
		}
	}
	for _, pat := range strings.Split(string(raw), "\n") {
		pat = strings.TrimSpace(pat)
		if pat == "" || strings.HasPrefix(pat, "#") {
			continue
		}
		anywhere := strings.HasPrefix(pat, "**/")
		pat = strings.TrimPrefix(strings.TrimPrefix(pat, "**/"), "/")
		for _, path := range needed {
			parts := strings.Split(path, "/")
			for i := range parts {
				if !anywhere && i > 0 {
					break
				}
				for j := i + 1; j <= len(parts); j++ {
					if ok, _ := filepath.Match(pat, strings.Join(parts[i:j], "/")); ok {
						t.Errorf(".dockerignore's %q leaves out %s, which the build needs", pat, path)
					}
				}
			}
		}
	}
}
