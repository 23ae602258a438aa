package main

// Slow tasks. Every simulator task finishes before its *_Task call returns,
// so a client's task-waiting code (PropertyCollector filter on the Task plus
// WaitForUpdatesEx) never sees a running task. With -task-seconds D > 0 the
// lab answers a *_Task call itself with a new Task in state "running", moves
// info.progress through -task-steps K even steps (100/K, 200/K, ...) over D
// seconds, and only then performs the call: it sends the client's original
// request to the simulator on the lab's own session (lab.dispatch), waits
// for the simulator's task and copies its outcome (state, result, error) to
// the client's task, with progress 100 on success. The effect (power state,
// files, ...) therefore happens at the end, as on vCenter.
//
// All changes go through simulator.Map.Update, the path the simulator's own
// tasks use: it applies the change and hands it to every PropertyCollector
// that is waiting, so WaitForUpdatesEx reports each step. (Assigning the
// fields directly would not be seen by waiters.)
//
// Time is the lab's clock (labclock.go): the wall, or with -clock manual
// the test's, which moves only when the test advances it; the task's
// timestamps are read off it too.
//
// Which methods: -slow-tasks, default "*" = every *_Task method the target
// object implements, except those a feature claims with lab.claimTask. The
// call is passed to the simulator unchanged (and fails there as usual) when
// the session is not valid, the object does not exist or lacks the method.
// The simulator's inner task stays in the inventory (and in recentTask).

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/vmware/govmomi/simulator"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

type slowTasks struct {
	seconds float64
	steps   int
	which   string
	first   int // -slow-tasks-first: so many slow tasks, the later ones at once (0: all slow)

	only   map[string]bool // nil: all
	l      *lab
	mu     sync.Mutex
	served int // slow tasks planned so far
}

func (t *slowTasks) flags(fs *flag.FlagSet) {
	fs.Float64Var(&t.seconds, "task-seconds", 0, "make *_Task methods take this many seconds, reporting progress (0 = instant)")
	fs.IntVar(&t.steps, "task-steps", 4, "number of even progress steps of a slow task")
	fs.StringVar(&t.which, "slow-tasks", "*", "comma-separated *_Task methods that -task-seconds applies to, or * for all")
	fs.IntVar(&t.first, "slow-tasks-first", 0, "only the first N tasks that -task-seconds applies to take that long, the later ones finish at once (0 = all)")
}

func (t *slowTasks) setup(l *lab) error {
	t.l = l
	l.slow = t
	if t.seconds < 0 {
		return fmt.Errorf("-task-seconds %v: want >= 0", t.seconds)
	}
	if t.steps < 1 {
		t.steps = 1
	}
	if t.which != "*" {
		t.only = make(map[string]bool)
		for _, m := range strings.Split(t.which, ",") {
			if m = strings.TrimSpace(m); m != "" {
				t.only[m] = true
			}
		}
	}
	if t.seconds > 0 {
		l.beforeCall(t.intercept)
	}
	return nil
}

func (t *slowTasks) applies(method string) bool {
	if !strings.HasSuffix(method, "_Task") || t.l.claimed[method] {
		return false
	}
	return t.only == nil || t.only[method]
}

func (t *slowTasks) intercept(c *soapCall, w http.ResponseWriter) bool {
	if !t.applies(c.Method) || !t.l.sessions.valid(c.Session) {
		return false
	}
	obj := simulator.Map.Get(c.This)
	if obj == nil {
		return false
	}
	// The dispatcher's name for Foo_Task is FooTask.
	goName := strings.TrimSuffix(c.Method, "_Task") + "Task"
	if !reflect.ValueOf(obj).MethodByName(goName).IsValid() {
		return false
	}
	// A task beyond -slow-tasks-first is performed before the answer, as
	// the simulator's own are: "done at once" then holds on any machine.
	t.l.serveTask(c, w, "", func() (types.AnyType, *types.LocalizedMethodFault) { return t.l.forward(c) })
	return true
}

// plan returns how long a task of method takes and in how many progress
// steps; 0 means at once. Claimed methods use it too (lab.serveTask).
func (t *slowTasks) plan(method string) (time.Duration, int) {
	if t.seconds <= 0 || !strings.HasSuffix(method, "_Task") || (t.only != nil && !t.only[method]) {
		return 0, 0
	}
	if t.first > 0 {
		t.mu.Lock()
		defer t.mu.Unlock()
		if t.served >= t.first {
			return 0, 0
		}
		t.served++
	}
	return time.Duration(t.seconds * float64(time.Second)), t.steps
}

// progress moves info.progress through steps-1 even steps over d, then
// waits the last step; the caller then performs the call and finishes.
// Each step is a step's time after the one before as the clock reads on
// waking: on the wall a late wake does not bunch the next steps (a
// waiter would see them as one), and a manual clock advanced by d at once
// still applies every step, reading each step's own time on waking.
// The caller holds the lab's clock.
func (t *slowTasks) progress(task *simulator.Task, d time.Duration, steps int) {
	if d <= 0 || steps < 1 {
		return
	}
	step := d / time.Duration(steps)
	for i := 1; i < steps; i++ {
		t.l.clock.sleepUntil(t.l.clock.reading().Add(step))
		update(task, []types.PropertyChange{{Name: "info.progress", Val: int32(i * 100 / steps)}})
	}
	t.l.clock.sleepUntil(t.l.clock.reading().Add(d - step*time.Duration(steps-1)))
}

// newClientTask makes the Task a client gets for call c, already running.
// vCenter's descriptionId is <Type>.<operation>, e.g. VirtualMachine.powerOff.
// Its queueTime and startTime are the lab clock's (CreateTask's is the wall's).
func (l *lab) newClientTask(c *soapCall, entityName string) *simulator.Task {
	op := strings.TrimSuffix(strings.TrimSuffix(c.Method, "_Task"), "VM")
	op = strings.ToLower(op[:1]) + op[1:]
	task := simulator.CreateTask(c.This, op, nil)
	now := l.clock.reading()
	changes := []types.PropertyChange{
		{Name: "info.name", Val: c.Method},
		{Name: "info.queueTime", Val: now},
		{Name: "info.startTime", Val: now},
		{Name: "info.state", Val: types.TaskInfoStateRunning},
	}
	if entityName != "" {
		changes = append(changes, types.PropertyChange{Name: "info.entityName", Val: entityName})
	}
	update(task, changes)
	addRecentTask(c.This, task.Reference())
	return task
}

// addRecentTask lists task in the entity's recentTask, as vCenter does for
// the tasks that operate on it (queued, running and recently finished): a
// client that finds a task still running there can wait for it instead of
// starting the change again. The simulator keeps only TaskManager's list.
func addRecentTask(entity, task types.ManagedObjectReference) {
	obj := simulator.Map.Get(entity)
	me, ok := obj.(mo.Entity)
	if !ok {
		return
	}
	simulator.Map.WithLock(obj, func() {
		recent := append(me.Entity().RecentTask, task)
		if len(recent) > recentTaskMax {
			recent = recent[len(recent)-recentTaskMax:]
		}
		simulator.Map.Update(obj, []types.PropertyChange{{Name: "recentTask", Val: recent}})
	})
}

// recentTaskMax bounds an entity's recentTask (vCenter keeps a few minutes' worth).
const recentTaskMax = 20

// finishTask records the outcome: success with progress 100 and the result,
// or error with the fault; completeTime is the lab clock's.
func (l *lab) finishTask(task *simulator.Task, result types.AnyType, fault *types.LocalizedMethodFault) {
	changes := []types.PropertyChange{{Name: "info.completeTime", Val: l.clock.reading()}}
	if result != nil {
		changes = append(changes, types.PropertyChange{Name: "info.result", Val: result})
	}
	if fault != nil {
		changes = append(changes,
			types.PropertyChange{Name: "info.error", Val: *fault},
			types.PropertyChange{Name: "info.state", Val: types.TaskInfoStateError})
	} else {
		changes = append(changes,
			types.PropertyChange{Name: "info.progress", Val: int32(100)},
			types.PropertyChange{Name: "info.state", Val: types.TaskInfoStateSuccess})
	}
	update(task, changes)
}

// serveTask answers a *_Task call that a feature implements itself (see
// lab.claimTask): the client gets a Task at once; perform runs when the
// task's time is up (-task-seconds, -task-steps, -slow-tasks apply as to any
// task), or before the answer when the method is not slow, as the
// simulator's own tasks do.
func (l *lab) serveTask(c *soapCall, w http.ResponseWriter, entityName string,
	perform func() (types.AnyType, *types.LocalizedMethodFault)) {
	var d time.Duration
	var steps int
	if l.slow != nil {
		d, steps = l.slow.plan(c.Method)
	}
	if d > 0 {
		l.clock.hold() // before the task's times are read: no advance slips in before its steps
	}
	task := l.newClientTask(c, entityName)
	if d <= 0 {
		result, fault := perform()
		l.finishTask(task, result, fault)
		writeMorefResponse(w, c.Method, task.Reference())
		return
	}
	writeMorefResponse(w, c.Method, task.Reference())
	go func() {
		defer l.clock.release()
		l.slow.progress(task, d, steps)
		result, fault := perform()
		l.finishTask(task, result, fault)
	}()
}

// forward sends the client's request to the simulator and returns the
// outcome of the task it starts (or its fault).
func (l *lab) forward(c *soapCall) (types.AnyType, *types.LocalizedMethodFault) {
	status, body, err := l.dispatch(c.Body)
	if err != nil {
		log.Printf("%s: %v", c.Method, err)
		return nil, &types.LocalizedMethodFault{Fault: &types.SystemError{Reason: err.Error()}, LocalizedMessage: err.Error()}
	}
	if status != http.StatusOK {
		return nil, readFault(body)
	}
	ref, ok := readReturnedMoref(body)
	if !ok {
		return nil, nil
	}
	inner, ok := simulator.Map.Get(ref).(*simulator.Task)
	if !ok {
		return ref, nil // not a task after all: report what came back
	}
	for deadline := time.Now().Add(time.Hour); ; time.Sleep(50 * time.Millisecond) {
		var info types.TaskInfo
		simulator.Map.WithLock(inner, func() { info = inner.Info })
		switch info.State {
		case types.TaskInfoStateSuccess:
			return info.Result, nil
		case types.TaskInfoStateError:
			return info.Result, info.Error
		}
		if time.Now().After(deadline) {
			msg := "inner task " + ref.Value + " did not finish"
			return nil, &types.LocalizedMethodFault{Fault: &types.SystemError{Reason: msg}, LocalizedMessage: msg}
		}
	}
}

// update applies changes to the task under its lock, so that concurrent
// RetrieveProperties calls see either the old or the new state.
func update(task *simulator.Task, changes []types.PropertyChange) {
	simulator.Map.WithLock(task, func() { simulator.Map.Update(task, changes) })
}
