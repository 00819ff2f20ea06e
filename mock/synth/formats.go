package synth

import (
	"encoding/base64"
	"net"
	"net/url"
	"strings"
	"time"
)

// objTimes keeps the timestamps of one object consistent: a submit or
// creation time, a start a little later and a completion or last update
// after that, all within the year before the generator's epoch. It is
// filled lazily, only for objects that have date fields.
type objTimes struct {
	set   bool
	base  int64 // unix seconds of the creation/submission
	start int64 // seconds from base to start
	run   int64 // seconds from start to completion
}

// dateRank orders well-known timestamp names: 0 creation/submission,
// 1 start, 2 completion/update/last use, 3 a future expiry; -1 unknown.
func dateRank(lname string) int {
	switch lname {
	case "datecreated", "created", "createdat", "creationdate", "creationtime", "submit", "submitted", "submittedat", "submittime", "datesubmitted":
		return 0
	case "start", "started", "startedat", "starttime", "datestarted":
		return 1
	case "complete", "completed", "completedat", "end", "ended", "endtime", "finished", "finishedat", "lastupdated", "updated",
		"updatedat", "lastmodified", "modified", "datemodified", "dateupdated", "lastused", "lastaccess", "lastaccessed",
		"lastseen", "lastactive", "lastlogin", "lastaccessdate":
		return 2
	case "expires", "expiration", "expirationdate", "expiry", "expiresat", "expirydate", "validuntil", "expiredate":
		return 3
	}
	return -1
}

// timeFor returns a plausible instant for a date field named lname (lower
// case) of the object whose times are ot.
func (c *run) timeFor(lname string, ot *objTimes) int64 {
	epoch := c.g.epochUnix
	const day = 86400
	if ot == nil {
		ot = &objTimes{}
	}
	if !ot.set {
		ot.set = true
		ot.base = epoch - 3600 - c.r.Int64N(364*day)
		ot.start = 5 + c.r.Int64N(600)
		ot.run = 120 + c.r.Int64N(12*3600)
	}
	var t int64
	switch dateRank(lname) {
	case 0:
		t = ot.base
	case 1:
		t = ot.base + ot.start
	case 2:
		t = ot.base + ot.start + ot.run
	case 3:
		return epoch + day + c.r.Int64N(364*day)
	default:
		return epoch - 60 - c.r.Int64N(365*day)
	}
	return min(t, epoch)
}

// appendDateTime formats unix seconds as YYYY-MM-DDTHH:MM:SSZ, the one
// timestamp form the contract allows (T2), without time.Format's
// allocation-heavy layout parsing.
func appendDateTime(b []byte, sec int64, withDate, withTime bool) []byte {
	t := time.Unix(sec, 0).UTC()
	if withDate {
		y, m, d := t.Date()
		b = append4(b, y)
		b = append(b, '-')
		b = append2(b, int(m))
		b = append(b, '-')
		b = append2(b, d)
	}
	if withDate && withTime {
		b = append(b, 'T')
	}
	if withTime {
		hh, mm, ss := t.Clock()
		b = append2(b, hh)
		b = append(b, ':')
		b = append2(b, mm)
		b = append(b, ':')
		b = append2(b, ss)
		b = append(b, 'Z')
	}
	return b
}

func append2(b []byte, v int) []byte { return append(b, byte('0'+v/10%10), byte('0'+v%10)) }
func append4(b []byte, v int) []byte {
	return append(b, byte('0'+v/1000%10), byte('0'+v/100%10), byte('0'+v/10%10), byte('0'+v%10))
}

// formatValue produces a string in the given format; ok is false for
// formats it does not know, which are then treated as plain strings.
func (c *run) formatValue(format, lname string, ot *objTimes) (string, bool) {
	r := c.r
	switch format {
	case "date-time":
		var buf [20]byte
		return string(appendDateTime(buf[:0], c.timeFor(lname, ot), true, true)), true
	case "date":
		var buf [10]byte
		return string(appendDateTime(buf[:0], c.timeFor(lname, ot), true, false)), true
	case "time":
		var buf [9]byte
		return string(appendDateTime(buf[:0], c.timeFor(lname, ot), false, true)), true
	case "email", "idn-email":
		return email(c), true
	case "uri", "url", "iri", "uri-reference", "iri-reference":
		return repoURL(c), true
	case "uuid":
		return uuid(c), true
	case "hostname", "idn-hostname":
		return hostname(c), true
	case "ipv4":
		return ipv4(c), true
	case "ipv6":
		return "2001:db8::" + string(hexDigits[r.IntN(16)]) + string(hexDigits[r.IntN(16)]), true
	case "byte":
		var raw [9]byte
		for i := range raw {
			raw[i] = byte(r.Uint32())
		}
		return base64.StdEncoding.EncodeToString(raw[:3+r.IntN(7)]), true
	case "binary":
		return IDN(r, 16), true
	case "password":
		return IDN(r, 16), true
	case "duration":
		return "PT" + itoa(int64(1+r.IntN(59))) + "M", true
	case "regex":
		return "^[a-z0-9-]+$", true
	case "json-pointer":
		return "/spec/params/input", true
	}
	return "", false
}

// formatOK is a cheap check for the formats the generator produces and
// the validator asserts (when format assertions are on); unknown formats
// pass, as JSON Schema prescribes.
func formatOK(format, s string) bool {
	switch format {
	case "":
		return true
	case "date-time":
		_, err := time.Parse(time.RFC3339, s)
		return err == nil
	case "date":
		_, err := time.Parse(time.DateOnly, s)
		return err == nil
	case "email", "idn-email":
		at := strings.LastIndexByte(s, '@')
		return at > 0 && at < len(s)-1 && !strings.ContainsAny(s, " \t\r\n")
	case "uuid":
		if len(s) != 36 {
			return false
		}
		for i := 0; i < len(s); i++ {
			c := s[i]
			if i == 8 || i == 13 || i == 18 || i == 23 {
				if c != '-' {
					return false
				}
			} else if !isHex(c) {
				return false
			}
		}
		return true
	case "ipv4":
		ip := net.ParseIP(s)
		return ip != nil && ip.To4() != nil && strings.Count(s, ".") == 3
	case "ipv6":
		return net.ParseIP(s) != nil && strings.Contains(s, ":")
	case "hostname":
		if s == "" || len(s) > 253 {
			return false
		}
		for _, label := range strings.Split(s, ".") {
			if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
				return false
			}
			for i := 0; i < len(label); i++ {
				if c := label[i]; !(isAlnum(c) || c == '-') {
					return false
				}
			}
		}
		return true
	case "uri", "url", "iri":
		u, err := url.Parse(s)
		return err == nil && u.Scheme != ""
	case "byte":
		_, err := base64.StdEncoding.DecodeString(s)
		return err == nil
	}
	return true
}

const hexDigits = "0123456789abcdef"

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
