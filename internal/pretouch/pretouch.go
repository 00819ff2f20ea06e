// Package pretouch makes memory a program is about to allocate resident
// before it is allocated, much as the JVM's AlwaysPreTouch does for its
// heap, so that the program does not take a page fault for each 4 KB it
// fills.
//
// `wmsmock serve` fills some 35 MB while it loads the published schema, all
// of it memory the process has never touched. On the virtual machines that
// CI and many developers run on, a page fault is dear: on the 2-core
// development machine the kernel's fault path was a fifth of start-up's CPU
// samples, and with transparent huge pages forced on (512 times fewer
// faults) parse, model and state each took about half as long. Asking the
// kernel for the pages in one call (MADV_POPULATE_WRITE) costs a fraction
// of faulting them one at a time, and done on a thread of its own it runs
// beside the loading instead of in its way.
//
// Go gives a program no say in where the heap grows, so Heap goes through
// the allocator: it allocates one large block, which the runtime maps but
// does not touch, lets a collection hand the block's pages back to the
// allocator, and then makes those pages resident while the allocator
// reuses them for what the program allocates next. On Linux before 5.14,
// which cannot populate memory, Heap does no more than allocate the block,
// which stays untouched until the collector takes it; on other systems it
// does nothing.
package pretouch

import "os"

// Heap grows the heap by about n bytes of free memory and makes it
// resident in the background; the returned channel is closed when that is
// done, or at once when the system cannot do it or n is under minBytes.
//
// It runs a collection, which is cheap while the heap is small and costs
// as much as any other once it is not, so it belongs at the very start of
// a program that owns its process (a command, not a library), before it
// allocates what n is for. The memory is the program's as any freed memory
// is: the allocator uses it first, and the runtime returns what stays
// unused to the system in its own time.
func Heap(n int) <-chan struct{} {
	done := make(chan struct{})
	if n < minBytes || !supported() {
		close(done)
		return done
	}
	addr := block(n)
	if !populate(addr, os.Getpagesize()) { // the first page tells whether the kernel can
		close(done)
		return done
	}
	collect()
	go func() {
		defer close(done)
		populate(addr, n)
	}()
	return done
}

// minBytes is the least Heap acts on: a smaller block could come from
// pages the heap already holds.
const minBytes = 1 << 20
