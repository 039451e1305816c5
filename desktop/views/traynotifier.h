#pragma once

#include <QObject>
#include <QString>

class QStatusBar;
class QSystemTrayIcon;

namespace ddl::desktop {

// The seam to the platform's notifications: a tray message where the desktop has a tray
// (Windows, macOS, most Linux desktops), else a status bar message. Also counts what it showed,
// so a test can see it.
class TrayNotifier : public QObject
{
    Q_OBJECT
public:
    TrayNotifier(QStatusBar *fallback, QObject *parent = nullptr);

    void notify(const QString &title, const QString &message);
    int shownCount() const { return m_shown; }
    QString lastMessage() const { return m_last; }
    bool hasTray() const { return m_tray != nullptr; }

private:
    QStatusBar *m_fallback;
    QSystemTrayIcon *m_tray = nullptr;
    int m_shown = 0;
    QString m_last;
};

} // namespace ddl::desktop
