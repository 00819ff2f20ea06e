//go:build !linux

package pretouch

func supported() bool            { return false }
func block(int) uintptr          { return 0 }
func collect()                   {}
func populate(uintptr, int) bool { return false }
