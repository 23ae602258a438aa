package main

// -methods-log FILE: one line per SOAP call, "<unix-ms> <Method> <status>",
// so tests can count round trips by method. The time is the call's arrival;
// the line is written (one write(2), so flushed) when the answer is done.
// Status 000: the connection was dropped without an answer (a simulator
// panic). Calls the lab makes internally (tasks.go) are not client calls and
// are not logged.

import (
	"flag"
	"fmt"
	"os"
	"sync"
)

type methodLog struct {
	path string
	mu   sync.Mutex
	f    *os.File
}

func (m *methodLog) flags(fs *flag.FlagSet) {
	fs.StringVar(&m.path, "methods-log", "", "append \"<unix-ms> <Method> <http-status>\" per SOAP call to this file")
}

func (m *methodLog) setup(l *lab) error {
	if m.path == "" {
		return nil
	}
	f, err := os.OpenFile(m.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	m.f = f
	l.afterCall(m.record)
	l.onClose(func() {
		m.mu.Lock()
		_ = m.f.Close()
		m.f = nil
		m.mu.Unlock()
	})
	return nil
}

func (m *methodLog) record(c *soapCall, status int) {
	line := fmt.Sprintf("%d %s %03d\n", c.Arrived.UnixMilli(), c.Method, status)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.f != nil {
		_, _ = m.f.WriteString(line)
	}
}
