package main

// The lab's clock for slow tasks (-clock). By default it is the wall: a
// task of -task-seconds D takes D real seconds. A test that asserts on what
// happens while a task runs then depends on how fast the machine is: under
// load a client's loop misses progress steps, a call "returns at once" in
// more than a second. With -clock manual the clock stands still until the
// test moves it, through a lab-only endpoint (vCenter has none):
//
//	GET  /lab/clock               the reading (RFC 3339, UTC)
//	POST /lab/clock?advance=500ms moves it; answers the new reading once
//	                              every step due by then has been applied
//
// Slow tasks wait on this clock (tasks.go, svqueue.go), and their
// queueTime, startTime and completeTime and the relocations log read it,
// so what a client computes from vCenter's timestamps is exactly what the
// test advanced. The manual clock starts at the wall's time, whole seconds.
//
// How "applied" is known: every goroutine that runs a slow task holds the
// clock (hold, from before the client gets its Task, to release when the
// task has finished) except while it sleeps until a deadline. advance moves
// the reading from one due deadline to the next, in order, and each time
// waits until no task is working and no sleeper is due: so a task's every
// step happens at its own time (a queued relocation starts exactly when the
// one before it ended) and the answer comes after the last of them.

import (
	"flag"
	"fmt"
	"net/http"
	"sync"
	"time"
)

type labClock struct {
	mode string // -clock: "wall" or "manual"

	advancing sync.Mutex // one advance at a time
	mu        sync.Mutex
	changed   *sync.Cond  // the reading moved, a sleeper woke, a task released
	now       time.Time   // the manual reading
	busy      int         // tasks holding the clock, not sleeping
	sleepers  []time.Time // deadlines of the tasks sleeping on it
}

func (c *labClock) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.mode, "clock", "wall", "slow tasks' clock: wall, or manual (moved only by POST /lab/clock?advance=DURATION)")
}

func (c *labClock) setup(l *lab) error {
	if c.mode != "wall" && c.mode != "manual" {
		return fmt.Errorf("-clock %q: want wall or manual", c.mode)
	}
	c.changed = sync.NewCond(&c.mu)
	c.now = time.Now().UTC().Truncate(time.Second)
	l.clock = c
	l.route("/lab/clock", c.serve)
	return nil
}

func (c *labClock) manual() bool { return c.mode == "manual" }

// reading is the clock's time: the wall's, or the manual reading.
func (c *labClock) reading() time.Time {
	if !c.manual() {
		return time.Now()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// hold marks a slow task as working: advance waits for it. Call it before
// the client can see the task, so no advance slips in before its first step.
func (c *labClock) hold() {
	c.mu.Lock()
	c.busy++
	c.mu.Unlock()
}

// release ends a hold: the task is finished.
func (c *labClock) release() {
	c.mu.Lock()
	c.busy--
	c.changed.Broadcast()
	c.mu.Unlock()
}

// sleepUntil waits until the clock reads t. The caller holds the clock and
// holds it again on return; while it sleeps, advance does not wait for it.
func (c *labClock) sleepUntil(t time.Time) {
	if !c.manual() {
		time.Sleep(time.Until(t))
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.now.Before(t) {
		return
	}
	c.busy--
	c.sleepers = append(c.sleepers, t)
	c.changed.Broadcast()
	for c.now.Before(t) {
		c.changed.Wait()
	}
	// Awake and working again, in one step under mu: advance never sees
	// this task neither sleeping nor busy.
	for i, s := range c.sleepers {
		if s.Equal(t) {
			c.sleepers = append(c.sleepers[:i], c.sleepers[i+1:]...)
			break
		}
	}
	c.busy++
	c.changed.Broadcast()
}

// advance moves the manual clock by d, through every deadline on the way,
// and returns the new reading once every task step due by then is done.
func (c *labClock) advance(d time.Duration) time.Time {
	c.advancing.Lock()
	defer c.advancing.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	end := c.now.Add(d)
	for {
		c.settle()
		next, ok := c.nextDeadline()
		if !ok || next.After(end) {
			break
		}
		c.now = next
		c.changed.Broadcast()
	}
	c.now = end
	return c.now
}

// settle waits until no task works and no sleeper is due; c.mu is held.
func (c *labClock) settle() {
	for {
		due := false
		for _, s := range c.sleepers {
			due = due || !c.now.Before(s)
		}
		if c.busy == 0 && !due {
			return
		}
		c.changed.Wait()
	}
}

// nextDeadline is the earliest sleeper's deadline; c.mu is held.
func (c *labClock) nextDeadline() (time.Time, bool) {
	var next time.Time
	for i, s := range c.sleepers {
		if i == 0 || s.Before(next) {
			next = s
		}
	}
	return next, len(c.sleepers) > 0
}

func (c *labClock) serve(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.Method == http.MethodGet:
	case r.Method != http.MethodPost:
		http.Error(w, "GET or POST", http.StatusMethodNotAllowed)
		return
	case !c.manual():
		http.Error(w, "the lab's clock is the wall: start the lab with -clock manual", http.StatusConflict)
		return
	default:
		d, err := time.ParseDuration(r.URL.Query().Get("advance"))
		if err != nil || d < 0 {
			http.Error(w, "want advance=DURATION (e.g. 500ms), not negative", http.StatusBadRequest)
			return
		}
		c.advance(d)
	}
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprintln(w, c.reading().UTC().Format(time.RFC3339Nano))
}
