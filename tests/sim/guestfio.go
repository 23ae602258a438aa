package main

// -guest-fio: what fio the guests have. A fresh test VM often has none, or
// a distribution's old one, or one without the libaio engine; nfsagent must
// say so before it benchmarks. The guest's programs are this machine's, so
// for every mode but "present" the lab puts a fio of its own first in the
// guest programs' PATH, one that answers as that guest's fio would.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

type guestFio struct {
	mode string
	bin  string // the directory put first in PATH, "" for present
}

var guestFioScripts = map[string]string{
	"present": "",
	// dash's answer for a command it cannot find
	"missing": "echo \"sh: 1: fio: not found\" >&2\nexit 127\n",
	// Debian 9's fio: no clat_ns in its JSON
	"old": "if [ \"$1\" = --version ]; then echo fio-2.16; exit 0; fi\nexec %s \"$@\"\n",
	// a fio built without libaio: not in --enghelp, and a libaio job fails
	"no-libaio": "if [ \"$1\" = --enghelp ]; then %s --enghelp | grep -v '^[[:space:]]*libaio$'; exit 0; fi\n" +
		"for a; do if [ -f \"$a\" ] && grep -qs 'ioengine=libaio' \"$a\"; then\n" +
		"echo 'fio: engine libaio not loadable' >&2; exit 1; fi; done\n" +
		"exec %s \"$@\"\n",
}

func (f *guestFio) Set(v string) error {
	if _, ok := guestFioScripts[v]; !ok {
		return fmt.Errorf("%q: want present, missing, old or no-libaio", v)
	}
	f.mode = v
	return nil
}

func (f *guestFio) String() string { return f.mode }

// setup writes the mode's fio into DIR/guest-fio.
func (f *guestFio) setup(dir string) error {
	script := guestFioScripts[f.mode]
	if script == "" {
		return nil
	}
	fioPath, err := exec.LookPath("fio")
	if err != nil && f.mode != "missing" {
		return fmt.Errorf("-guest-fio %s wraps this machine's fio: %v", f.mode, err)
	}
	f.bin = filepath.Join(dir, "guest-fio")
	if err := os.MkdirAll(f.bin, 0o755); err != nil {
		return err
	}
	q := shellQuote(fioPath)
	body := "#!/bin/sh\n" + strings.ReplaceAll(script, "%s", q)
	return os.WriteFile(filepath.Join(f.bin, "fio"), []byte(body), 0o755)
}

// path puts the mode's fio first in the environment's PATH, or in the
// shell's default one when the caller gives none (nfsagent sends only LANG).
func (f *guestFio) path(env []string) []string {
	if f.bin == "" {
		return env
	}
	for i, e := range env {
		if strings.HasPrefix(e, "PATH=") {
			env[i] = "PATH=" + f.bin + ":" + strings.TrimPrefix(e, "PATH=")
			return env
		}
	}
	return append(env, "PATH="+f.bin+":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
}
