#pragma once

#include "core/folderdrop.h"

#include <QWidget>

class QDropEvent;
class QLabel;
class QLineEdit;
class QPushButton;

namespace ddl::desktop {

// A folder chooser: a line to type or paste a path, a Browse button, and a drop target for a
// folder dragged from the file manager (anything else is refused with the reason shown).
class FolderField : public QWidget
{
    Q_OBJECT
    Q_PROPERTY(QString path READ path WRITE setPath NOTIFY pathChanged USER true)
public:
    explicit FolderField(const QString &dialogTitle, QWidget *parent = nullptr);

    QString path() const;
    void setPath(const QString &path);
    QLineEdit *lineEdit() const { return m_edit; }
    // Why the last drag was refused (several items, a file); empty when it was not.
    QString dropMessage() const;
    // The title of the folder dialog (the page sets it again when the language changes).
    void setDialogTitle(const QString &title) { m_title = title; }

signals:
    void pathChanged(const QString &path);

protected:
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void dragLeaveEvent(QDragLeaveEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();

    QLineEdit *m_edit;
    QLabel *m_message;
    QPushButton *m_browse;
    QString m_title;
    FolderDrop m_drag; // what the drag under way carries, inspected once when it entered
};

} // namespace ddl::desktop
