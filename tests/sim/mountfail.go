package main

// -fail-mount HOST:TYPE[:FROM] (repeatable or comma list): CreateNasDatastore
// of type TYPE (NFS or NFS41) on host HOST fails from its FROMth attempt on
// (default 1: every attempt), as one host fails when its NFS client cannot
// reach the server (a firewall ruleset closed, a vmknic down). Lets a test
// make a mount across several hosts fail on one of them, and fail again
// later (FROM 2: the first mount works, the next does not).
//
// The answer is ESXi's shape: PlatformConfigFault, faultstring "An error
// occurred during host configuration.", the reason only in faultMessage
// (and in text).

import (
	"flag"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/types"
)

type mountFailure struct {
	host, kind string
	from       int
}

type mountFailures struct {
	rules []mountFailure
	l     *lab

	mu       sync.Mutex
	attempts map[string]int // by host and type
}

func (m *mountFailures) flags(fs *flag.FlagSet) {
	fs.Func("fail-mount", "HOST:TYPE[:FROM]: CreateNasDatastore of TYPE (NFS, NFS41) on HOST fails from "+
		"its FROMth attempt on (default 1); repeatable or comma list", func(v string) error {
		for _, s := range strings.Split(v, ",") {
			parts := strings.Split(strings.TrimSpace(s), ":")
			r := mountFailure{from: 1}
			if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || (parts[1] != nfs3 && parts[1] != nfs41) {
				return fmt.Errorf("%q: want HOST:NFS or HOST:NFS41, optionally :FROM", s)
			}
			r.host, r.kind = parts[0], parts[1]
			if len(parts) == 3 {
				n, err := strconv.Atoi(parts[2])
				if err != nil || n < 1 {
					return fmt.Errorf("%q: FROM is a number from 1", s)
				}
				r.from = n
			}
			m.rules = append(m.rules, r)
		}
		return nil
	})
}

func (m *mountFailures) setup(l *lab) error {
	if len(m.rules) == 0 {
		return nil
	}
	m.l = l
	m.attempts = make(map[string]int)
	l.beforeCall(m.hook)
	return nil
}

func (m *mountFailures) hook(c *soapCall, w http.ResponseWriter) bool {
	if c.Method != "CreateNasDatastore" || !m.l.sessions.valid(c.Session) {
		return false
	}
	dss, ok := simulator.Map.Get(c.This).(*nasDatastoreSystem)
	var req types.CreateNasDatastore
	if !ok || decodeRequest(c.Body, &req) != nil {
		return false
	}
	host := dss.host()
	kind := req.Spec.Type
	if kind == "" {
		kind = nfs3
	}
	m.mu.Lock()
	key := host.Name + "\x00" + kind
	m.attempts[key]++
	n := m.attempts[key]
	m.mu.Unlock()
	for _, r := range m.rules {
		if r.host == host.Name && r.kind == kind && n >= r.from {
			text := fmt.Sprintf("NFS mount %s:%s failed: Unable to connect to NFS server.",
				req.Spec.RemoteHost, req.Spec.RemotePath)
			writeFault(w, "An error occurred during host configuration.", &types.PlatformConfigFault{
				HostConfigFault: types.HostConfigFault{VimFault: types.VimFault{MethodFault: types.MethodFault{
					FaultMessage: []types.LocalizableMessage{{Key: "com.vmware.esx.hostctl.default", Message: text}},
				}}},
				Text: text,
			})
			return true
		}
	}
	return false
}
