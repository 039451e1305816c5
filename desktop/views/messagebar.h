#pragma once

#include <QFrame>

class QLabel;

namespace ddl::desktop {

// Where errors are shown whole: a band over the workspace that wraps a long message instead of
// cutting it, keeps it until it is closed or replaced, and lets it be selected and copied. The
// status bar keeps the passing notes ("Logged in as ...").
class MessageBar : public QFrame
{
    Q_OBJECT
public:
    explicit MessageBar(QWidget *parent = nullptr);

    void showError(const QString &message);
    QString text() const;

private:
    QLabel *m_text;
};

} // namespace ddl::desktop
