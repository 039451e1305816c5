# CPack: one Debian package per component on Linux (`cpack` in the build folder, or
# packaging/make-debs.sh); an NSIS installer on Windows and a drag-and-drop disk image on macOS
# for the clients, written but never run here (docs/packaging.md).
set(CPACK_PACKAGE_NAME ddl)
set(CPACK_PACKAGE_VENDOR "DDL")
set(CPACK_PACKAGE_CONTACT "DDL maintainers <ddl-maintainers@lists.example.org>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_INSTALL_DIRECTORY "DDL")
set(CPACK_OUTPUT_FILE_PREFIX packages)
set(CPACK_STRIP_FILES ON)

# A component's description is its package's: the first line is the summary. (No package-wide
# CPACK_PACKAGE_DESCRIPTION_SUMMARY on Linux: CPack would put it above each one.)
set(CPACK_COMPONENT_SERVER_DISPLAY_NAME "DDL server")
set(CPACK_COMPONENT_SERVER_DESCRIPTION
    "DDL server: jobs, uploads, logs and the scheduler over HTTPS
ddl-server is the headless HTTPS service of DDL: users, jobs, resumable
uploads of code and datasets, logs, artifacts and the gang scheduler that
places jobs onto workers. It keeps its SQLite store, blobs and logs in
/var/lib/ddl and runs as the system user ddl (ddl-server.service).")
set(CPACK_COMPONENT_WORKER_DISPLAY_NAME "DDL worker")
set(CPACK_COMPONENT_WORKER_DESCRIPTION
    "DDL worker agent: runs training tasks on this machine's GPUs
ddl-worker enrolls with a DDL server, reports this machine's GPUs, CPUs and
memory, leases tasks and runs them in a bubblewrap sandbox (or a podman
container), streaming their logs and uploading their outputs. It runs as the
system user ddl-worker (ddl-worker.service), configured in
/etc/ddl/worker.yaml.")
set(CPACK_COMPONENT_CLI_DISPLAY_NAME "DDL command-line client")
set(CPACK_COMPONENT_CLI_DESCRIPTION
    "DDL command-line client (ddlcli, paddle, elasticdl)
ddlcli submits a model kept in a git repository with its dataset to a DDL
server, follows its logs and downloads the trained model. Under the names
paddle and elasticdl it reads those clients' command lines. The example
projects are in /usr/share/ddl/examples.")
set(CPACK_COMPONENT_DESKTOP_DISPLAY_NAME "DDL desktop client")
set(CPACK_COMPONENT_DESKTOP_DESCRIPTION
    "DDL desktop client (Qt Widgets)
ddl-desktop is the DDL client with windows: the job list, a JSON job editor,
a submit wizard, live logs, metric charts, artifacts, datasets with
drag-and-drop upload and the cluster's workers. English, German and
Simplified Chinese.")

set(CPACK_COMPONENTS_ALL "")
if(DDL_BUILD_SERVER)
    list(APPEND CPACK_COMPONENTS_ALL server worker)
endif()
if(DDL_BUILD_CLI)
    list(APPEND CPACK_COMPONENTS_ALL cli)
endif()
if(DDL_BUILD_DESKTOP)
    list(APPEND CPACK_COMPONENTS_ALL desktop)
endif()

if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    set(CPACK_GENERATOR DEB)
    set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
    set(CPACK_DEB_COMPONENT_INSTALL ON)
    set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
    set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
    set(CPACK_DEBIAN_PACKAGE_SECTION science)
    set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
    # dpkg-shlibdeps (dpkg-dev) adds the libraries the binaries link; what they load or run
    # without linking it (Qt plugins, bubblewrap, python3, adduser; procps for the worker
    # unit's ExecReload=/bin/kill) is named below.
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
    set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)

    set(CPACK_DEBIAN_SERVER_PACKAGE_NAME ddl-server)
    set(CPACK_DEBIAN_SERVER_PACKAGE_SECTION net)
    set(CPACK_DEBIAN_SERVER_PACKAGE_DEPENDS "adduser, libqt6sql6-sqlite")
    set(CPACK_DEBIAN_SERVER_PACKAGE_SUGGESTS "ddlcli, ddl-worker")
    set(CPACK_DEBIAN_SERVER_PACKAGE_CONTROL_EXTRA
        ${DDL_PACKAGING_DIR}/debian/ddl-server/conffiles
        ${DDL_PACKAGING_DIR}/debian/ddl-server/postinst
        ${DDL_PACKAGING_DIR}/debian/ddl-server/prerm
        ${DDL_PACKAGING_DIR}/debian/ddl-server/postrm)

    set(CPACK_DEBIAN_WORKER_PACKAGE_NAME ddl-worker)
    set(CPACK_DEBIAN_WORKER_PACKAGE_DEPENDS "adduser, bubblewrap, procps, python3, python3-venv")
    # podman runs the tasks of jobs that name an image (container_runtime: podman) with runc
    # (crun refuses hybrid cgroup hierarchies, docs/images.md), rootless through uidmap's
    # newuidmap; numpy is what most DDL models import first.
    set(CPACK_DEBIAN_WORKER_PACKAGE_RECOMMENDS "podman, runc, uidmap, python3-numpy")
    set(CPACK_DEBIAN_WORKER_PACKAGE_CONTROL_EXTRA
        ${DDL_PACKAGING_DIR}/debian/ddl-worker/conffiles
        ${DDL_PACKAGING_DIR}/debian/ddl-worker/postinst
        ${DDL_PACKAGING_DIR}/debian/ddl-worker/prerm
        ${DDL_PACKAGING_DIR}/debian/ddl-worker/postrm)

    set(CPACK_DEBIAN_CLI_PACKAGE_NAME ddlcli)
    set(CPACK_DEBIAN_CLI_PACKAGE_SECTION utils)
    # `ddlcli image push` and `ddlcli zoo build` run podman; submitting needs no git binary.
    set(CPACK_DEBIAN_CLI_PACKAGE_SUGGESTS "podman, git")

    set(CPACK_DEBIAN_DESKTOP_PACKAGE_NAME ddl-desktop)
    set(CPACK_DEBIAN_DESKTOP_PACKAGE_SECTION x11)
    # The window icon is an SVG (Qt's svg icon engine and image plugin are in libqt6svg6); the
    # Qt dialogs' own strings in German and Chinese are in qt6-translations-l10n. A keyring
    # (Secret Service) holds the refresh token; without one it goes to a 0600 file.
    set(CPACK_DEBIAN_DESKTOP_PACKAGE_DEPENDS "libqt6svg6")
    set(CPACK_DEBIAN_DESKTOP_PACKAGE_RECOMMENDS "qt6-translations-l10n, git")
    set(CPACK_DEBIAN_DESKTOP_PACKAGE_SUGGESTS "gnome-keyring | kwalletmanager, qt6-wayland")
elseif(WIN32)
    # Untried (docs/packaging.md): an NSIS installer of ddl-desktop and ddlcli, the Qt and
    # third-party DLLs laid beside them by packaging/deploy.cmake.
    set(CPACK_GENERATOR NSIS)
    set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "DDL: train deep-learning models on GPUs of others")
    set(CPACK_COMPONENTS_ALL desktop cli)
    set(CPACK_PACKAGE_EXECUTABLES "ddl-desktop" "DDL")
    set(CPACK_NSIS_DISPLAY_NAME "DDL")
    set(CPACK_NSIS_PACKAGE_NAME "DDL ${PROJECT_VERSION}")
    set(CPACK_NSIS_INSTALLED_ICON_NAME "bin\\\\ddl-desktop.exe")
    set(CPACK_NSIS_MODIFY_PATH ON) # ddlcli on PATH
    set(CPACK_NSIS_ENABLE_UNINSTALL_BEFORE_INSTALL ON)
elseif(APPLE)
    # Untried (docs/packaging.md): DDL.app (ddl-desktop, macdeployqt'd) on a disk image.
    set(CPACK_GENERATOR DragNDrop)
    set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "DDL: train deep-learning models on GPUs of others")
    set(CPACK_COMPONENTS_ALL desktop)
    set(CPACK_DMG_VOLUME_NAME "DDL")
    set(CPACK_DMG_FORMAT UDZO)
endif()

include(CPack)
