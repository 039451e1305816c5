#pragma once

#include <QCoreApplication>
#include <QString>

class QApplication;
class QTranslator;

namespace ddl::desktop {

// Starts the desktop client: application names, the translation (the system's language or the
// one chosen in the settings), the main window with its editor, wizard and screens.
class DesktopApp
{
    Q_DECLARE_TR_FUNCTIONS(DesktopApp)
public:
    static int run(QApplication &app);
    // Loads ":/i18n/ddl_<lang>.qm" for language ("" = the system's); true when one was loaded.
    static bool installTranslation(QApplication &app, const QString &language);
};

} // namespace ddl::desktop
