#include "desktopapp.h"

#include "app/desktopresources.h"
#include "app/workspacebuilder.h"
#include "core/desktopsettings.h"
#include "views/mainwindow.h"

#include <QApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QPointer>
#include <QTranslator>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

bool DesktopApp::installTranslation(QApplication &app, const QString &language)
{
    initDesktopResources();
    // The translators of an earlier call go first: one language at a time.
    static QList<QPointer<QTranslator>> installed;
    for (const QPointer<QTranslator> &old : std::as_const(installed)) {
        if (old) {
            QCoreApplication::removeTranslator(old);
            delete old;
        }
    }
    installed.clear();
    const QLocale locale = language.isEmpty() ? QLocale::system() : QLocale(language);
    // Dates, numbers and sizes follow the language chosen, not only the texts.
    QLocale::setDefault(locale);
    auto *translator = new QTranslator(&app);
    if (!translator->load(locale, u"ddl"_s, u"_"_s, u":/i18n"_s)) {
        delete translator;
        return false;
    }
    app.installTranslator(translator);
    installed.append(translator);
    // Qt's own strings (dialog buttons) in the same language, where Qt ships them.
    auto *qtTranslator = new QTranslator(&app);
    if (qtTranslator->load(locale, u"qtbase"_s, u"_"_s,
                           QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
        app.installTranslator(qtTranslator);
        installed.append(qtTranslator);
    } else {
        delete qtTranslator;
    }
    return true;
}

int DesktopApp::run(QApplication &app)
{
    initDesktopResources();
    QApplication::setApplicationName(u"ddl-desktop"_s);
    QApplication::setOrganizationName(u"ddl"_s);
    QApplication::setApplicationVersion(QStringLiteral(DDL_VERSION));
    QApplication::setWindowIcon(QIcon(u":/icons/ddl.svg"_s));
    DesktopSettings settings;
    installTranslation(app, settings.language());
    MainWindow window(settings);
    WorkspaceBuilder::build(window);
    window.show();
    window.restoreSession();
    return app.exec();
}

} // namespace ddl::desktop
