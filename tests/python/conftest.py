# The package's own tests use its pytest plugin (when cutwin is installed the plugin is
# registered under the same name, so this does not load it twice).
pytest_plugins = ["cutwin.pytest_plugin"]
