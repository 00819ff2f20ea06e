package pretouch

import (
	"runtime"
	"syscall"
	"unsafe"
)

// madvPopulateWrite is MADV_POPULATE_WRITE (Linux 5.14): fault the range
// in, writable, as a write to each page would, without writing.
const madvPopulateWrite = 23

func supported() bool { return true }

// block allocates n bytes that nothing keeps, and returns where they are.
// A block this large is a span of its own, page-aligned, mapped fresh and
// not zeroed (fresh memory from the system is zero already). It is a
// function of its own so that no stack slot of Heap's keeps the block
// alive through the collection.
//
//go:noinline
func block(n int) uintptr {
	b := make([]byte, n)
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))
}

// collect frees the block: runtime.GC returns once the heap is swept, so
// the block's pages are back with the allocator, still mapped.
func collect() { runtime.GC() }

// populate makes [addr, addr+n) resident. The range is the heap's own and
// stays mapped, so populating it while the allocator hands its pages out
// is safe: a page already touched is left as it is.
func populate(addr uintptr, n int) bool {
	_, _, errno := syscall.Syscall(syscall.SYS_MADVISE, addr, uintptr(n), madvPopulateWrite)
	return errno == 0
}
