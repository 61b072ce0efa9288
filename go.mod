module github.com/rein-agent/rein

go 1.26
