package main

// HTTP 503 injection: a vCenter behind a load balancer or restarting its
// vpxd answers "503 Service Unavailable" before doing anything. A failed call
// has no effect, so the client may retry it.
//   -fail-503 P        each eligible call fails with probability P, drawn from
//                      a math/rand source seeded with -seed (reproducible for
//                      a given order of calls);
//   -fail-503-after N  only calls after the Nth are eligible (let login pass);
//   -fail-burst K      instead of random: calls N+1 .. N+K all fail.
//   -fail-503-late P   a changing call that nfsagent checks the world after
//                      (CreateNasDatastore, RemoveDatastore, RelocateVM_Task,
//                      PowerOnVM_Task, PowerOffVM_Task, StartProgramInGuest)
//                      is processed, then answered 503 with probability P:
//                      the proxy lost the service's answer.

import (
	"flag"
	"fmt"
	"math/rand"
	"net/http"
	"sync"
)

type unavailable struct {
	p     float64
	late  float64
	seed  int64
	after int64
	burst int64

	mu  sync.Mutex
	rng *rand.Rand
}

func (u *unavailable) flags(fs *flag.FlagSet) {
	fs.Float64Var(&u.p, "fail-503", 0, "probability (0..1) that a SOAP call is answered 503 Service Unavailable")
	fs.Int64Var(&u.seed, "seed", 1, "seed for -fail-503")
	fs.Int64Var(&u.after, "fail-503-after", 0, "only calls after the Nth can get 503")
	fs.Int64Var(&u.burst, "fail-burst", 0, "answer 503 to exactly the K calls after -fail-503-after (overrides -fail-503)")
	fs.Float64Var(&u.late, "fail-503-late", 0, "probability (0..1) that a checked changing call is processed, then answered 503")
}

func (u *unavailable) setup(l *lab) error {
	if u.p < 0 || u.p > 1 || u.late < 0 || u.late > 1 {
		return fmt.Errorf("-fail-503 %v, -fail-503-late %v: want probabilities between 0 and 1", u.p, u.late)
	}
	u.rng = rand.New(rand.NewSource(u.seed))
	if u.p > 0 || u.burst > 0 {
		l.beforeCall(u.hook)
	}
	if u.late > 0 {
		l.lateFail = u.lateHook
	}
	return nil
}

// checkedCalls are the changing calls nfsagent reads the world after.
var checkedCalls = map[string]bool{
	"CreateNasDatastore": true, "RemoveDatastore": true, "RelocateVM_Task": true,
	"PowerOnVM_Task": true, "PowerOffVM_Task": true, "StartProgramInGuest": true,
}

func (u *unavailable) lateHook(c *soapCall) bool {
	if !checkedCalls[c.Method] || c.Seq <= u.after {
		return false
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.rng.Float64() < u.late
}

func writeUnavailable(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write([]byte("503 Service Unavailable\n"))
}

func (u *unavailable) fail(seq int64) bool {
	if seq <= u.after {
		return false
	}
	if u.burst > 0 {
		return seq <= u.after+u.burst
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.rng.Float64() < u.p
}

func (u *unavailable) hook(c *soapCall, w http.ResponseWriter) bool {
	if !u.fail(c.Seq) {
		return false
	}
	writeUnavailable(w)
	return true
}
