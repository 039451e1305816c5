#pragma once

#include <QWizardPage>

class QComboBox;
class QLabel;

namespace ddl::desktop {

class FolderField;

// Step 3: the dataset folder (optional): how many files and bytes it holds, counted off the GUI
// thread. It is packed and uploaded content-addressed: bytes the server has are not sent again.
class DatasetPage : public QWizardPage
{
    Q_OBJECT
public:
    explicit DatasetPage(QWidget *parent = nullptr);
    void initializePage() override;
    bool isComplete() const override;
    FolderField *folderField() const { return m_folder; }
    QComboBox *serverCombo() const { return m_serverCombo; }
    QString summary() const;
    // What the submit will send of the folder: "3 of 5 files (1.2 MB) must be uploaded".
    QString plan() const;
    // The dataset chosen from the server's list, or empty for the folder (or none).
    QString serverDataset() const;

signals:
    void serverDatasetsListed(int count);
    void planned();

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();
    void measure();
    void listServerDatasets();
    void planUpload(const QString &folder, int generation);

    FolderField *m_folder;
    QLabel *m_summary;
    QLabel *m_useLabel;
    QLabel *m_folderLabel;
    QComboBox *m_serverCombo;
    QLabel *m_plan;
    bool m_listed = false;
    int m_planCount = 0;
    int m_generation = 0;
    int m_shownGeneration = -1; // the wizard's job whose dataset folder was offered
};

} // namespace ddl::desktop
