# Sourced by the test runners: tally reads test output lines, echoes them and
# counts the verdicts in pass, fail and skip (which the runner sets to 0).
tally() {
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case "$line" in
		PASS\ *) pass=$((pass + 1)) ;;
		FAIL\ *) fail=$((fail + 1)) ;;
		SKIP\ *) skip=$((skip + 1)) ;;
		esac
	done
}
