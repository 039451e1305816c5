#include "traynotifier.h"

#include <QApplication>
#include <QStatusBar>
#include <QSystemTrayIcon>

namespace ddl::desktop {

TrayNotifier::TrayNotifier(QStatusBar *fallback, QObject *parent)
    : QObject(parent)
    , m_fallback(fallback)
{
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        m_tray = new QSystemTrayIcon(QApplication::windowIcon(), this);
        m_tray->setToolTip(tr("DDL"));
        m_tray->show();
    }
}

void TrayNotifier::notify(const QString &title, const QString &message)
{
    ++m_shown;
    m_last = title + QLatin1String(": ") + message;
    if (m_tray && QSystemTrayIcon::supportsMessages())
        m_tray->showMessage(title, message, QSystemTrayIcon::Information, 8000);
    else if (m_fallback)
        m_fallback->showMessage(m_last, 15000);
}

} // namespace ddl::desktop
