#pragma once

#include <QWidget>

class QLineEdit;

namespace ddl::desktop {

// A folder chooser: a line to type or paste a path, a Browse button, and a drop target for a
// folder dragged from the file manager.
class FolderField : public QWidget
{
    Q_OBJECT
    Q_PROPERTY(QString path READ path WRITE setPath NOTIFY pathChanged USER true)
public:
    explicit FolderField(const QString &dialogTitle, QWidget *parent = nullptr);

    QString path() const;
    void setPath(const QString &path);
    QLineEdit *lineEdit() const { return m_edit; }

signals:
    void pathChanged(const QString &path);

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    QLineEdit *m_edit;
    QString m_title;
};

} // namespace ddl::desktop
