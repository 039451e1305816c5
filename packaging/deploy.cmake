# Windows and macOS: lays the Qt libraries and plugins that ddl-desktop loads beside it at
# install time, so that `cpack` packs a program that starts on a machine without Qt. Written
# from Qt's and CMake's documentation and never run here (docs/packaging.md, "Windows and macOS").
#
# qt_generate_deploy_app_script (Qt 6.3+) runs windeployqt on Windows and macdeployqt on macOS
# over the installed program; --no-translations is not passed: the Qt dialogs' own German and
# Chinese strings ship too.
qt_generate_deploy_app_script(
    TARGET ddl-desktop
    FILENAME_VARIABLE ddl_desktop_deploy_script
    NO_UNSUPPORTED_PLATFORM_ERROR)
install(SCRIPT ${ddl_desktop_deploy_script} COMPONENT desktop)

if(WIN32)
    # windeployqt copies Qt only. libgit2, libarchive, yaml-cpp, OpenSSL and qtkeychain (from
    # vcpkg, docs/desktop.md) are what ddl-desktop's import libraries name (the set is made in
    # packaging/CMakeLists.txt); Windows' own DLLs stay out. ddlcli needs a subset of them.
    install(RUNTIME_DEPENDENCY_SET ddl_desktop_dlls
            PRE_EXCLUDE_REGEXES "api-ms-.*" "ext-ms-.*"
            POST_EXCLUDE_REGEXES ".*[/\\\\][Ss]ystem32[/\\\\].*"
            DIRECTORIES $ENV{VCPKG_ROOT}/installed/x64-windows/bin
            DESTINATION ${CMAKE_INSTALL_BINDIR}
            COMPONENT desktop)
endif()
