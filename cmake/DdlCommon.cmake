# One INTERFACE target carries the language level, warnings and Qt defines for every target.
add_library(ddl_common INTERFACE)
target_compile_features(ddl_common INTERFACE cxx_std_20)
if(MSVC)
    # /utf-8: the sources are UTF-8 (tr() texts with "…", the language menu's "简体中文").
    target_compile_options(ddl_common INTERFACE /W4 /wd4100 /utf-8 /permissive- /Zc:__cplusplus)
else()
    target_compile_options(ddl_common INTERFACE -Wall -Wextra -Wno-unused-parameter)
endif()
target_compile_definitions(ddl_common INTERFACE
    QT_NO_CAST_FROM_ASCII
    QT_NO_CAST_TO_ASCII
    QT_NO_CAST_FROM_BYTEARRAY
    QT_NO_URL_CAST_FROM_STRING
    QT_USE_QSTRINGBUILDER
    QT_MESSAGELOGCONTEXT
    DDL_VERSION="${PROJECT_VERSION}")
