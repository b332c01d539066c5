module github.com/dqs/dqs/auth/internal/gencommon

go 1.26

require github.com/trustelem/zxcvbn v1.0.1
