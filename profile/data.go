package profile

import "time"

// Data bounds what the fake keeps behind seqera:// paths: data links'
// browse pages and download URLs, and the bytes uploaded to datasets.
// The browse page size and the URL's lifetime are choices the document
// leaves open; the caps keep every fake's memory bounded whatever its
// clients upload.
type Data struct {
	BrowsePageSize    int           `yaml:"browse_page_size"`
	BrowseMaxPageSize int           `yaml:"browse_max_page_size"`
	DownloadURLExpiry time.Duration `yaml:"download_url_expiry"`
	StoredMax         Size          `yaml:"stored_max"`
	UploadMax         Size          `yaml:"upload_max"`
}

func (d *Data) validate(v *validator) {
	if d.BrowsePageSize <= 0 {
		v.add("data.browse_page_size", "must be more than 0, got %d", d.BrowsePageSize)
	}
	if d.BrowseMaxPageSize < d.BrowsePageSize {
		v.add("data.browse_max_page_size", "must be at least browse_page_size (%d), got %d", d.BrowsePageSize, d.BrowseMaxPageSize)
	}
	if d.DownloadURLExpiry <= 0 {
		v.add("data.download_url_expiry", "must be more than 0, got %s", d.DownloadURLExpiry)
	}
	if d.StoredMax <= 0 {
		v.add("data.stored_max", "must be more than 0 bytes, got %d", d.StoredMax)
	}
	if d.UploadMax <= 0 || d.UploadMax > d.StoredMax {
		v.add("data.upload_max", "must be more than 0 bytes and at most stored_max, got %d", d.UploadMax)
	}
}
