# CPack settings for the Debian package (`make package` -> build/hetplan_<version>_<arch>.deb).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hetplan)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "The hetplan authors")
set(CPACK_PACKAGE_CONTACT "hetplan maintainers <maintainers@users.noreply.a-seed-3e3226e6.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "plan training of large models on heterogeneous GPU clusters")
# CPack puts the summary on the Description line; this is only the extended description.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "hetplan chooses data, tensor and pipeline parallel degrees, assigns layers to
pipeline stages and GPUs to stages for training a large model on a cluster
that mixes GPU types, and predicts the iteration time and peak memory of each
plan with one shared simulator. It runs several published planners side by
side.
.
This package holds the desktop app (hetplan) and the command-line tool
(hetplan-cli).")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
# Depends comes from dpkg-shlibdeps (the libraries the binaries link). What Qt loads at run time as a
# plugin does not show in the ELF headers; the plugins hetplan loads are the platform (xcb, offscreen) and
# image-format plugins of libqt6gui6 and the SVG plugins of libqt6svg6, both linked, so shlibdeps names
# them. Project files go through libsqlite3 directly, not Qt Sql, so no QSQLITE driver
# (libqt6sql6-sqlite) is loaded or needed; tst_deb_package checks the loaded plugins against Depends.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
include(CPack)
