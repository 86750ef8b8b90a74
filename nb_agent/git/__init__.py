"""Reading git repositories without running git or anything their configuration names."""
